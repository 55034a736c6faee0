import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Sends `bytes` to `127.0.0.1:port` on a connection of its own, then reads until the server
/// closes it, `receiveTimeout` seconds pass without a byte, or `limit` bytes have arrived: for
/// tests that speak HTTP byte for byte. `nil` when no connection could be made; otherwise how
/// many bytes `send` took, and what came back.
func rawHTTPExchange(_ bytes: [UInt8], port: UInt16, receiveTimeout: Int = 5, limit: Int = 1 << 20) -> (sent: Int, answer: String)? {
    #if canImport(Glibc)
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let socket = Darwin.socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard socket >= 0 else { return nil }
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = port.bigEndian
    let connected = withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
    guard connected else { return nil }
    var timeout = timeval(tv_sec: receiveTimeout, tv_usec: 0)
    setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let sent = bytes.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, 0) }
    var answer: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while answer.count < limit {
        let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { break }
        answer += buffer[..<count]
    }
    return (sent, String(decoding: answer, as: UTF8.self))
}
