import ArgumentParser
import Foundation

/// Standard output or a file, written in chunks.
final class OutputSink: Sendable {
    private let handle: FileHandle
    private let owned: Bool

    init(path: String?) throws {
        guard let path else {
            handle = FileHandle.standardOutput
            owned = false
            return
        }
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw ValidationError("--output: cannot create \(path)")
        }
        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        owned = true
    }

    func write(_ text: String) throws { try handle.write(contentsOf: Data(text.utf8)) }

    func close() throws {
        if owned { try handle.close() }
    }
}
