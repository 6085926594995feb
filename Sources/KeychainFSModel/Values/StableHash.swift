/// FNV-1a, 64 bits: a stable, non-cryptographic hash for names and numbers derived from paths
/// (socket paths, inode numbers, shortened file names). Never used where an attacker's choice matters.
public enum StableHash {
    /// Contiguous bytes (`Data`, arrays) are read from their storage: through `Data`'s iterator every
    /// inode of an item cost about 60 instructions a byte (measured: each OPEN and each listed item).
    @inlinable
    public static func fnv1a64<S: Sequence>(_ bytes: S) -> UInt64 where S.Element == UInt8 {
        if let hash = bytes.withContiguousStorageIfAvailable({ fnv1a64(buffer: $0) }) { return hash }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    @inlinable
    static func fnv1a64(buffer: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in buffer { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}
