import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Raw TCP connections to a server on 127.0.0.1, for checks that send what no HTTP client would: a
/// head that never ends, a URI past the parser's limit, nothing at all. Blocking: call from a
/// thread of its own, not the cooperative pool (a blocked pool thread can keep the server under
/// test from answering).
public enum Loopback {
    /// A connection to 127.0.0.1:`port` whose reads give up after `seconds`; tried `attempts`
    /// times, 100 ms apart, while the port refuses (a server still starting). The caller closes
    /// the descriptor.
    public static func connect(port: Int, timeout seconds: Int, attempts: Int = 1) throws -> Int32 {
        for attempt in 0..<max(1, attempts) {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EMFILE) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            if connected == 0 {
                var limit = timeval(tv_sec: seconds, tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
                return fd
            }
            close(fd)
            if attempt + 1 < attempts { usleep(100_000) }
        }
        throw POSIXError(.ECONNREFUSED)
    }

    /// Sends all of `bytes` (a peer that closes early ends it quietly).
    public static func send(_ fd: Int32, _ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return }
            sent += count
        }
    }

    /// Everything the server sends until it closes the connection (`closed`; a reset counts, as
    /// when the server answered and closed before all of a request was sent), or until a read
    /// waits past the timeout (not closed).
    public static func readToClose(_ fd: Int32) -> (bytes: [UInt8], closed: Bool) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count == 0 { return (received, true) }
            if count < 0, errno == EINTR { continue }
            if count < 0 { return (received, errno != EAGAIN && errno != EWOULDBLOCK) }
            received += buffer[..<count]
        }
    }
}
