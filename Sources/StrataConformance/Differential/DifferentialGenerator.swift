import Foundation
import Strata

/// Makes a seeded sequence of mixed operations over the fixture domain: small ID pools so
/// operations meet the same records (duplicates, missing records, conflicts, rule violations),
/// values at the edges of the value rules, every delete rule, every relationship storage, every
/// query operator, and every write path.
struct DifferentialGenerator {
    var random: SeededRandom

    // MARK: Pools

    let people: [RecordID]
    let trips: [RecordID]
    let stops: [RecordID]
    let passports: [RecordID]
    let shelves: [RecordID]
    let books: [RecordID]
    let chapters: [RecordID]
    let tags: [RecordID] = ["beach", "city", "food", "é", "e\u{0301}x"].map { RecordID.string(ValueRules.nfc($0)) }
    let agencies: [RecordID] = [1, 2, 3].map { RecordID.int($0) }
    let authors: [RecordID] = ["a1", "a2", "a3"].map(RecordID.string)
    let nodes: [RecordID] = ["n1", "n2", "n3", "n4"].map(RecordID.string)
    let samples: [RecordID] = ["s0", "s1", "s2", "s3", "É", "É2", "s6", "s7"].map(RecordID.string)

    init(seed: UInt64, poolsFrom poolSeed: UInt64 = 0x5EED) {
        random = SeededRandom(seed: seed)
        var pools = SeededRandom(seed: poolSeed)
        func uuids(_ count: Int) -> [RecordID] { (0..<count).map { _ in .uuid(pools.uuid()) } }
        people = uuids(5)
        trips = uuids(6)
        stops = uuids(6)
        passports = uuids(3)
        shelves = uuids(2)
        books = uuids(4)
        chapters = uuids(3)
    }

    /// The records each store holds, as the reference last saw them, so most operations meet
    /// records that exist (and some deliberately do not).
    var existing: [DifferentialTarget: [String: [RecordID]]] = [:]
    /// The store the operation being made acts on.
    var target: DifferentialTarget = .server

    /// Tells the generator what a store holds now.
    mutating func observe(_ snapshot: StoreSnapshot, of target: DifferentialTarget) {
        var byEntity: [String: [RecordID]] = [:]
        for key in snapshot.records.keys { byEntity[key.entity, default: []].append(key.id) }
        existing[target] = byEntity.mapValues { $0.sorted() }
    }

    /// An ID of `entity`: mostly one that exists (or, with `fresh`, one that does not).
    mutating func id(_ entity: String, fresh: Bool = false) -> RecordID {
        let present = existing[target]?[entity] ?? []
        if fresh {
            let absent = pool(entity).filter { !present.contains($0) }
            if !absent.isEmpty, random.chance(0.85) { return random.pick(absent) }
        } else if !present.isEmpty, random.chance(0.85) {
            return random.pick(present)
        }
        return random.pick(pool(entity))
    }

    // MARK: Values

    static let texts = [
        "", "a", "A", "abc", "ABC", "é", "e\u{0301}", "Émile", "E\u{0301}mile", "Zoë", "straße", "中文", "😀", "lisbon",
        "Lisbon", "São", "Sao",
    ]
    static let numbers: [Double] = [0, 1, -1, 0.5, 2.25, 3.0, 4.75, 1e300, -1e300, .infinity, -.infinity, 1.0 / 3.0]
    static let seconds: [Double] = [0, 1.0 / 3.0, 1e-7, 800_000_000.123_456_7, 86_400, -86_400.5, 1_767_225_600]

    /// Decimals of every shape, equal ones written differently among them (0.1 and 0.10).
    static let decimals = [
        "0", "0.1", "0.10", "-1.5", "2.25", "3", "-0.000001", "1e-30", "12345678901234567890123456789012345678",
        "-99999999999999999999999999999999999999",
    ].compactMap { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) }

    mutating func decimal() -> Value { .decimal(random.pick(Self.decimals)) }
    mutating func optionalDecimal() -> Value { random.chance(0.2) ? .null : decimal() }
    mutating func text() -> Value { .string(random.pick(Self.texts)) }
    mutating func optionalText() -> Value { random.chance(0.2) ? .null : text() }
    mutating func number() -> Value { random.chance(0.2) ? .null : .double(random.pick(Self.numbers)) }
    mutating func date() -> Value {
        .date(Date(timeIntervalSinceReferenceDate: random.pick(Self.seconds) + Double(random.int(0...3)) * 86_400))
    }
    mutating func optionalDate() -> Value { random.chance(0.2) ? .null : date() }
    /// A to-one value: nil now and then, mostly an existing record, rarely a missing one.
    mutating func reference(_ entity: String, nilChance: Double = 0.3) -> Value {
        if random.chance(nilChance) { return .null }
        if (existing[target]?[entity] ?? []).isEmpty, random.chance(0.9) {
            return nilChance > 0.1 ? .null : id(entity).value
        }
        return id(entity).value
    }

    /// Whether the store holds any record of `entity`.
    func hasRecords(_ entity: String) -> Bool { !(existing[target]?[entity] ?? []).isEmpty }

    // MARK: Records

    static let entities = [
        "Sample", "Sample", "Person", "Trip", "Trip", "Stop", "Tag", "Agency", "Passport", "Node", "Shelf", "Book",
        "Chapter", "Author",
    ]

    func pool(_ entity: String) -> [RecordID] {
        switch entity {
        case "Person": people
        case "Trip": trips
        case "Stop": stops
        case "Tag": tags
        case "Agency": agencies
        case "Passport": passports
        case "Node": nodes
        case "Shelf": shelves
        case "Book": books
        case "Chapter": chapters
        case "Author": authors
        default: samples
        }
    }

    mutating func key(_ entity: String) -> RecordKey { RecordKey(entity: entity, id: id(entity)) }

    /// A whole record (every property, so the typed paths can decode it), now and then with a
    /// value a rule refuses.
    mutating func record(_ entity: String, fresh: Bool = true) -> Record {
        let id = id(entity, fresh: fresh)
        var values: [String: Value] = [:]
        switch entity {
        case "Person":
            values = [
                "name": random.chance(0.02)
                    ? "" : .string(random.pick(["Ana", "Bruno", "Émile", "E\u{0301}mile", "Zoë"])),
                "email": random.chance(0.5)
                    ? .null
                    : .string(
                        random.chance(0.05) ? "not-an-email" : random.pick(["a@x.io", "b@x.io", "c@x.io", "d@x.io"])),
                "age": random.chance(0.2) ? .null : .int(Int64(random.int(0...155))),
                "address.city": .string(random.pick(["Lisbon", "Porto", "São Paulo"])),
                "address.street": optionalText(),
                "address.postcode": random.chance(0.7) ? .null : .string(random.pick(["1100", "4000", "4000", "12"])),
                "status": .string(
                    random.pick(["regular", "silver", "gold", random.chance(0.1) ? "platinum" : "gold"])),
                "rating": random.chance(0.3) ? .null : .double(random.pick([0, 1.5, 3, 4.5, 5, 5, 6])),
                "isVerified": .bool(random.chance(0.5)),
                "birthDate": optionalDate(),
                "avatar": random.chance(0.7) ? .null : .data(Data([UInt8(random.int(0...255)), 1, 2])),
                "passport": reference("Passport", nilChance: 0.6),
            ]
        case "Trip":
            values = [
                "name": .string(random.pick(["Spring", "Wine", "Hike", "São", "Sa\u{0303}o"])),
                "start": .date(Date(timeIntervalSinceReferenceDate: Double(random.int(0...3)) * 86_400)),
                "end": random.chance(0.6)
                    ? .null : .date(Date(timeIntervalSinceReferenceDate: Double(random.int(2...6)) * 86_400 - 1)),
                "budget": random.chance(0.03) ? .double(-5) : number(),
                "isFavorite": .bool(random.chance(0.3)),
                "traveller": reference("Person"),
                "agency": reference("Agency", nilChance: 0.5),
                "coverPhoto": .null,
            ]
        case "Stop":
            values = [
                "name": text(), "city": .string(random.pick(["Lisbon", "Porto", "Sintra"])),
                "nights": .int(Int64(random.int(0...5))),
                "trip": reference("Trip", nilChance: 0.05),
            ]
        case "Tag": values = ["label": .string(random.pick(["Beach", "City", "Food", "É", "E\u{0301}"]))]
        case "Agency":
            values = [
                "name": .string(random.pick(["Sol", "Mar", "Céu"])), "owner": reference("Person", nilChance: 0.5),
            ]
        case "Passport":
            values = [
                "number": .string(random.pick(["P1", "P2", "P3", "P4"])),
                "country": .string(random.pick(["PT", "ES", "PT", "P"])),
                "owner": reference("Person", nilChance: 0.5),
            ]
        case "Node":
            values = [
                "label": text(), "next": reference("Node", nilChance: 0.5),
                "previous": reference("Node", nilChance: 0.5),
            ]
        case "Shelf": values = ["label": text()]
        case "Book": values = ["title": text(), "shelf": reference("Shelf", nilChance: 0.5)]
        case "Chapter": values = ["title": text(), "book": reference("Book", nilChance: 0.4)]
        case "Author": values = ["name": text()]
        default:
            values = [
                "key": optionalText(), "text": optionalText(), "number": number(), "amount": number(),
                "when": optionalDate(),
                "moment": optionalDate(), "count": random.chance(0.2) ? .null : .int(Int64(random.int(-3...3))),
                "code": random.chance(0.5) ? .null : .string(random.pick(["x", "y", "é", "e\u{0301}"])),
                "price": optionalDecimal(), "cost": optionalDecimal(),
                "fee": random.chance(0.6) ? .null : decimal(),
            ].merging(collectionValues()) { first, _ in first }
        }
        return Record(entity: entity, id: id, values: values)
    }

    /// A few of a fresh record's properties, as an update.
    mutating func changes(_ entity: String) -> [String: Value] {
        let full = record(entity, fresh: false).values
        var picked: [String: Value] = [:]
        for name in full.keys.sorted() where random.chance(0.35) { picked[name] = full[name] }
        if picked.isEmpty, let name = full.keys.sorted().first { picked[name] = full[name] }
        return picked
    }

    static let toMany: [(entity: String, name: String, destination: String)] = [
        ("Trip", "tags", "Tag"), ("Tag", "trips", "Trip"), ("Person", "trips", "Trip"), ("Person", "interests", "Tag"),
        ("Tag", "people", "Person"), ("Trip", "stops", "Stop"), ("Agency", "bookings", "Trip"),
        ("Shelf", "books", "Book"),
        ("Book", "chapters", "Chapter"), ("Book", "authors", "Author"), ("Author", "books", "Book"),
        ("Person", "ownedAgencies", "Agency"),
    ]

    mutating func edit() -> DifferentialEdit {
        let entity = random.pick(Self.entities)
        let choice = random.int(0...11)
        // Changing what does not exist mostly fails the same way; now and then is enough.
        if choice > 3, !hasRecords(entity), random.chance(0.85) { return .insert(record(entity)) }
        switch choice {
        case 0, 1, 2: return .insert(record(entity))
        case 3: return .upsert(record(entity, fresh: random.chance(0.5)))
        case 4, 5: return .update(key(entity), changes(entity))
        case 6: return .delete(key(entity))
        case 7: return .deleteMatching(query(entity, paged: false))
        default:
            let relationship = random.pick(Self.toMany)
            if !hasRecords(relationship.entity) || !hasRecords(relationship.destination), random.chance(0.85) {
                return .insert(record(hasRecords(relationship.entity) ? relationship.destination : relationship.entity))
            }
            let owner = key(relationship.entity)
            let target = id(relationship.destination)
            switch random.int(0...3) {
            case 0, 1: return .link(owner, relationship.name, target)
            case 2: return .unlink(owner, relationship.name, target)
            default:
                let targets = (0..<random.int(0...3)).map { _ in id(relationship.destination) }
                return .setRelated(owner, relationship.name, targets)
            }
        }
    }

    // MARK: Operations

    mutating func operation(canReopen: Bool, canAbruptlyStop: Bool) -> DifferentialOperation {
        target = random.chance(0.7) ? .server : .client
        switch random.int(0...99) {
        case 0...29: return .transaction(target, (0..<random.int(1...3)).map { _ in edit() })
        case 30...49: return .repository(target, edit())
        case 50...63:
            let reads = (0..<random.int(0...3)).map { _ in key(random.pick(Self.entities)) }
            let memberships = (0..<random.int(0...2)).map { _ in
                let relationship = random.pick(Self.toMany)
                return DifferentialOperation.MembershipRead(
                    owner: key(relationship.entity), relationship: relationship.name)
            }
            let interleaved = (0..<random.int(0...2)).map { _ in edit() }
            let changes = (0..<random.int(1...3)).map { _ in edit() }
            return .context(
                target, random.pick(PolicyUnderTest.allCases), reads: reads, memberships: memberships,
                interleaved: interleaved, changes: changes)
        case 64...73: return .sync
        case 74...96: return .query(target, query(random.pick(Self.entities)))
        case 97...98 where canReopen: return .reopen(abrupt: false)
        case 99 where canAbruptlyStop: return .reopen(abrupt: true)
        default: return .query(target, query(random.pick(Self.entities)))
        }
    }
}
