import Foundation
import Observation
import Strata
import StrataConformance
import StrataInMemory
import Synchronization
import Testing

/// `LiveResults`: an `@Observable` object that follows a query, checked the way SwiftUI reads it —
/// through `withObservationTracking` — against a fresh fetch after every save of a seeded stream.
@MainActor
@Suite struct LiveResultsTests {
    /// Whether an `onChange` ran.
    final class Told: Sendable {
        let value = Atomic<Bool>(false)
    }

    /// A fresh seed, printed with the test's name so that a failure can be replayed.
    static func newSeed(_ test: String) -> UInt64 {
        var system = SystemRandomNumberGenerator()
        let seed = system.next()
        print("\(test): seed \(seed)")
        return seed
    }

    /// Waits (polling, up to 20 s) until `condition` holds; says whether it did.
    static func eventually(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<2_000 {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test func theResultsFollowEverySaveAndTellTheTrackingCodeOnlyWhenTheyChange() async throws {
        let (seed, store) = (
            Self.newSeed("theResultsFollowEverySaveAndTellTheTrackingCodeOnlyWhenTheyChange"),
            Store(backend: InMemoryBackend(schema: try TravelDomain.schema()))
        )
        var random = SeededRandom(seed: seed)
        let people = store.repository(Person.self)
        let query = Query<Person>.where(\.age > 30).sorted(by: \.name)
        let live = LiveResults(query, in: store)
        #expect(try await Self.eventually { live.isLoaded }, "the first results arrive (seed \(seed))")
        #expect(live.models.isEmpty && live.error == nil)
        var ids: [UUID] = []
        for step in 0..<60 {
            let told = Told()
            withObservationTracking {
                _ = live.models
            } onChange: {
                told.value.store(true, ordering: .relaxed)
            }
            let before = live.models
            switch random.below(3) {
            case 0 where !ids.isEmpty:
                try await people.delete(ids.remove(at: random.below(ids.count)))
            default:
                let person = Person(name: "P\(random.int(0...999))", age: random.int(0...80))
                ids.append(person.id)
                try await people.insert(person)
            }
            // A save the query cannot see delivers nothing (and moves no token): wait for the results
            // a fresh fetch gives.
            let fetched = try await people.fetch(query)
            #expect(
                try await Self.eventually { live.models == fetched }, "step \(step): as a fresh fetch (seed \(seed))")
            #expect(
                told.value.load(ordering: .relaxed) == (live.models != before),
                "step \(step): the tracking code is told exactly when the results changed (seed \(seed))")
        }
        try await people.insert(Person(name: "Last", age: 70))
        let token = try await store.currentHistoryToken()
        #expect(try await Self.eventually { live.token == token }, "the token of the last save it saw (seed \(seed))")
        live.cancel()
        try await people.insert(Person(name: "After", age: 99))
        try await Task.sleep(for: .milliseconds(200))
        #expect(!live.models.contains { $0.name == "After" }, "a cancelled object no longer follows")
    }

    @Test func aClosedStoreEndsItWithTheErrorAndTheLastResults() async throws {
        let store = Store(backend: InMemoryBackend(schema: try TravelDomain.schema()))
        try await store.repository(Person.self).insert(Person(name: "Ana", age: 40))
        let live = LiveResults(Query<Person>.all, in: store)
        #expect(try await Self.eventually { live.models.count == 1 })
        try await store.close()
        #expect(try await Self.eventually { live.error != nil }, "the observation ends with an error")
        #expect(live.error?.code == .storeClosed, "\(String(describing: live.error))")
        #expect(live.models.map(\.name) == ["Ana"], "the last results stay")
    }

    /// What a service's actor holds: the results follow on it, and its own tracking code is told.
    actor Follower {
        private var live: IsolatedLiveResults<Person>?
        private var told = false

        func start(_ query: Query<Person>, in store: Store) { live = IsolatedLiveResults(query, in: store) }

        /// Starts tracking the results here (as a view's body would read them).
        func track() {
            told = false
            withObservationTracking {
                _ = live?.models
            } onChange: { [weak self] in
                guard let self else { return }
                Task { await self.noteChange() }
            }
        }

        private func noteChange() { told = true }

        func state() -> (models: [Person], isLoaded: Bool, told: Bool) {
            (live?.models ?? [], live?.isLoaded ?? false, told)
        }

        func stop() { live?.cancel() }
    }

    @Test func onAnotherActorTheResultsFollowEverySaveAndItsTrackingCodeIsTold() async throws {
        let (seed, store) = (
            Self.newSeed("onAnotherActorTheResultsFollowEverySave"),
            Store(backend: InMemoryBackend(schema: try TravelDomain.schema()))
        )
        var random = SeededRandom(seed: seed)
        let people = store.repository(Person.self)
        let query = Query<Person>.where(\.age < 50).sorted(by: \.name)
        let follower = Follower()
        await follower.start(query, in: store)
        #expect(try await Self.eventually(on: follower) { $0.isLoaded }, "the first results arrive (seed \(seed))")
        for step in 0..<30 {
            await follower.track()
            let person = Person(name: "P\(random.int(0...999))", age: random.int(0...80))
            try await people.insert(person)
            let fetched = try await people.fetch(query)
            #expect(
                try await Self.eventually(on: follower) { $0.models == fetched },
                "step \(step): as a fresh fetch (seed \(seed))")
            if let age = person.age, age < 50 {
                #expect(
                    try await Self.eventually(on: follower) { $0.told },
                    "step \(step): the actor's tracking code is told (seed \(seed))")
            }
        }
        await follower.stop()
        try await people.insert(Person(name: "After", age: 1))
        try await Task.sleep(for: .milliseconds(200))
        #expect(
            !(await follower.state().models.contains { $0.name == "After" }), "a cancelled object no longer follows")
    }

    /// Waits (polling, up to 20 s) until `condition` holds of the follower's state.
    static func eventually(
        on follower: Follower, _ condition: ((models: [Person], isLoaded: Bool, told: Bool)) -> Bool
    ) async throws -> Bool {
        for _ in 0..<2_000 {
            if condition(await follower.state()) { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return condition(await follower.state())
    }
}
