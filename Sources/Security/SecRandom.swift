/// A random-number generator (Apple's `SecRandomRef`); there is one, the system's.
public typealias SecRandomRef = OpaquePointer

/// The default generator (NULL, as on Apple platforms).
public nonisolated(unsafe) let kSecRandomDefault: SecRandomRef? = nil

/// Fills `bytes` with `count` cryptographically secure random bytes (Apple's `SecRandomCopyBytes`), from
/// Swift's SystemRandomNumberGenerator, which reads the kernel's CSPRNG (getrandom(2)) on Linux.
/// errSecSuccess, or errSecParam for a negative count.
public func SecRandomCopyBytes(_ rnd: SecRandomRef?, _ count: Int, _ bytes: UnsafeMutableRawPointer) -> Int32 {
    guard count >= 0 else { return errSecParam }
    var generator = SystemRandomNumberGenerator()
    var offset = 0
    while offset < count {
        var word = generator.next()
        let take = min(MemoryLayout<UInt64>.size, count - offset)
        withUnsafeBytes(of: &word) { (bytes + offset).copyMemory(from: $0.baseAddress!, byteCount: take) }
        offset += take
    }
    return errSecSuccess
}
