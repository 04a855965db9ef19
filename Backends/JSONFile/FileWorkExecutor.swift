import Dispatch

/// Runs a JSON store's saves — the journal's append and fsync, a compaction's rewrite — on a
/// thread of its own rather than on one of Swift's cooperative threads (as many as the machine has
/// cores: two on a 2-core server), which a blocking fsync would keep from every other task of the
/// process meanwhile. One per store: its saves wait for each other in any case.
final class FileWorkExecutor: TaskExecutor {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
