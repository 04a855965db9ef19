import BenchmarkWorkloads
import Foundation
import Strata

/// What one update of observed sections costs after a one-record save, beside a fresh sectioned
/// fetch of the same records: the store at `url` holds `count` items; the observation sections
/// them by `category` (100 sections), sorted by score, with no limit (so the store catches it up
/// from the changed record, no refetch). Each of `saves` updates moves one item — to another
/// section every other save — and the time runs from the save's start to the delivered value.
/// Prints: median update seconds, median save seconds alone, sectioned fetch seconds, sections.
func observeSections(_ store: Store, saves: Int) async throws -> (update: Double, save: Double, fetch: Double) {
    let items = store.repository(BenchItem.self)
    let query = Query<BenchItem>.all.sorted(by: \.score)
    let key = SectionKey<BenchItem, Int>.attribute(\.category)
    var begin = ContinuousClock.now
    let fetched = try await items.fetch(query, sectionedBy: key)
    let fetch = seconds(ContinuousClock.now - begin)
    let (values, delivered) = AsyncStream<SectionedQueryResults<BenchItem, Int>>.makeStream()
    let observer = Task {
        for try await value in store.observe(query, sectionedBy: key) { delivered.yield(value) }
    }
    defer { observer.cancel() }
    var iterator = values.makeAsyncIterator()
    guard let first = await iterator.next(), first.sections.count == fetched.sections.count else {
        throw StrataError(.storageFailure, "the first value is not the fetch")
    }
    var updates: [Double] = []
    var writes: [Double] = []
    for step in 0..<saves {
        var item = fetched.sections[step % fetched.sections.count].models[step]
        item.score += 0.05
        if step % 2 == 1 { item.category = (item.category + 1) % 100 }
        begin = ContinuousClock.now
        try await items.update(item)
        writes.append(seconds(ContinuousClock.now - begin))
        guard let value = await iterator.next(), !value.diff.isEmpty else {
            throw StrataError(.storageFailure, "save \(step) delivered nothing")
        }
        updates.append(seconds(ContinuousClock.now - begin))
    }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    return (median(updates), median(writes), fetch)
}
