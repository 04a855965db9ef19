/// A query's results read a batch at a time: an `AsyncSequence` whose memory is bounded by the
/// batch, not by the result — what an export, a report or a migration over a large store iterates.
///
/// ```swift
/// for try await trip in trips.stream(Query<Trip>.all.sorted(by: \.start), batchSize: 500) {
///     try report.add(trip)
/// }
/// ```
///
/// Nothing is read until the first element is asked for; then one batch is read at a time, the
/// next only when the previous one has been consumed. What a stream sees while others write
/// depends on the backend: one consistent snapshot where the backend can hold one (the in-memory
/// store, the JSON file, SQLite in WAL mode — as if the whole result had been read at once), or
/// else each batch one consistent read of its own (LMDB, PostgreSQL, a context). Batch-consistent
/// still delivers every record that exists and keeps its sort keys throughout exactly once, in
/// order; a record inserted, deleted or re-sorted meanwhile may appear or not, once at most when
/// the sort keys do not change (see the Queries article). Ending the loop early, or an error,
/// releases the snapshot.
public struct ModelStream<Element: Sendable>: AsyncSequence, Sendable {
    /// A read that fails ends the stream with its error.
    public typealias Failure = any Error

    /// The batch size streams use when none is given.
    public static var defaultBatchSize: Int { 1_000 }

    let open: @Sendable () async throws -> BatchSource<Element>

    /// A stream reading its batches from what `open` returns.
    init(open: @escaping @Sendable () async throws -> BatchSource<Element>) {
        self.open = open
    }

    /// The stream's batches as arrays, for work done a batch at a time (one save per batch).
    public var batches: Batches { Batches(stream: self) }

    /// An iterator that reads the first batch when first asked.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(stream: self) }

    /// Reads the next batch when the current one is used up.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var batches: Batches.AsyncIterator
        var buffer: [Element] = []
        var index = 0

        init(stream: ModelStream) { batches = Batches.AsyncIterator(stream: stream) }

        /// The next model, or nil at the end.
        public mutating func next() async throws -> Element? { try await next(isolation: nil) }

        /// The next model: from the batch in hand without leaving the caller's executor (a loop on
        /// an actor costs no hop per model), reading the next batch when this one is used up.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws -> Element? {
            while index == buffer.count {
                guard let batch = try await batches.next(isolation: actor) else { return nil }
                buffer = batch
                index = 0
            }
            defer { index += 1 }
            return buffer[index]
        }
    }

    /// A stream's batches: each a non-empty array of at most the batch size.
    public struct Batches: AsyncSequence, Sendable {
        /// One batch.
        public typealias Element = [ModelStream.Element]
        /// A read that fails ends the batches with its error.
        public typealias Failure = any Error
        let stream: ModelStream

        /// An iterator that reads the first batch when first asked.
        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(stream: stream) }

        /// Opens the source at the first call and releases it at the end, on an error, or when the
        /// iterator is dropped.
        public struct AsyncIterator: AsyncIteratorProtocol {
            let stream: ModelStream
            var source: BatchSource<ModelStream.Element>?
            var finished = false

            init(stream: ModelStream) { self.stream = stream }

            /// The next batch, or nil at the end.
            public mutating func next() async throws -> [ModelStream.Element]? { try await next(isolation: nil) }

            /// The next batch, read on the caller's executor's behalf.
            public mutating func next(isolation actor: isolated (any Actor)?) async throws -> [ModelStream.Element]? {
                guard !finished else { return nil }
                do {
                    let source: BatchSource<ModelStream.Element>
                    if let open = self.source {
                        source = open
                    } else {
                        source = try await stream.open()
                        self.source = source
                    }
                    if let batch = try await source.next(), !batch.isEmpty { return batch }
                } catch {
                    end()
                    throw error
                }
                end()
                return nil
            }

            private mutating func end() {
                finished = true
                source?.close()
                source = nil
            }
        }
    }
}

/// Where a stream's batches come from: `next` reads one (nil at the end), `close` releases what
/// the reads hold (a snapshot) and runs once, at the end or when the last reference goes.
final class BatchSource<Element: Sendable>: Sendable {
    let next: @Sendable () async throws -> [Element]?
    private let release: @Sendable () -> Void

    init(next: @escaping @Sendable () async throws -> [Element]?, close: @escaping @Sendable () -> Void = {}) {
        self.next = next
        self.release = close
    }

    func close() { release() }

    deinit { release() }
}
