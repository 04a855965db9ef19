import Strata
import StrataInMemory
import StrataConformance
let schema = try TravelDomain.schema()
print("schema ok")
let store = Store(backend: InMemoryBackend(schema: schema))
print("store ok")
let ana = TravelData().ana
print("data ok")
try await store.repository(Person.self).insert(ana)
print("inserted")
print(try await store.repository(Person.self).fetch(ana.id) as Any)
