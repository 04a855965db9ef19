import Foundation
import Synchronization

/// Progress on standard error: a bar redrawn in place on a terminal, otherwise a plain line every
/// 100,000 units (so logs stay readable).
final class ProgressBar: Sendable {
    let total: Int
    let label: String
    private let terminal = isatty(STDERR_FILENO) == 1
    private let last = Mutex(-1)

    init(total: Int, label: String) {
        self.total = total
        self.label = label
    }

    func advance(to done: Int) {
        if terminal, total == 0 {
            FileHandle.standardError.write(Data("\r\(label): \(done)".utf8))
        } else if terminal {
            let percent = total == 0 ? 100 : done * 100 / total
            guard
                last.withLock({ shown in
                    defer { shown = percent }
                    return shown != percent
                })
            else { return }
            let filled = percent / 4
            FileHandle.standardError.write(
                Data(
                    "\r\(label) [\(Self.bar(filled))] \(percent)% \(done)/\(total)".utf8))
        } else if last.withLock({ shown in
            defer { shown = done / 100_000 }
            return shown != done / 100_000
        }) {
            if done > 0 {
                FileHandle.standardError.write(Data("\(label): \(done)\(total > 0 ? "/\(total)" : "")\n".utf8))
            }
        }
    }

    /// Ends the bar; given `done`, first draws it at `done` whatever was drawn last, so the final
    /// line never shows a stale count (`2/9` after all nine were written).
    func finish(at done: Int? = nil) {
        if let done {
            if terminal {
                last.withLock { $0 = -1 }
                advance(to: done)
            } else if done > 0 {
                FileHandle.standardError.write(Data("\(label): \(done)\(total > 0 ? "/\(total)" : "") done\n".utf8))
            }
        }
        if terminal { FileHandle.standardError.write(Data("\n".utf8)) }
    }

    /// A phase of a longer job (a migration's stage): the bar of `phase`, redrawn; on a plain
    /// output, one line per phase and per 100,000 units.
    func show(_ phase: String, done: Int, total: Int) {
        let key = phase.hashValue ^ (done / 100_000)
        if terminal {
            let percent = total == 0 ? 100 : done * 100 / total
            let filled = min(25, percent / 4)
            FileHandle.standardError.write(
                Data(
                    "\r\u{1B}[K\(label): \(phase) [\(Self.bar(filled))] \(done)/\(total)".utf8))
        } else if last.withLock({ shown in
            defer { shown = key }
            return shown != key
        }) {
            FileHandle.standardError.write(Data("\(label): \(phase) \(done)/\(total)\n".utf8))
        }
    }

    /// The bar's 25 cells, `filled` of them done.
    static func bar(_ filled: Int) -> String {
        String(repeating: "#", count: filled) + String(repeating: ".", count: 25 - filled)
    }
}
