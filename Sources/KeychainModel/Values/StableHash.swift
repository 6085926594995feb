/// FNV-1a, 64 bits: a stable, non-cryptographic hash for names and numbers derived from paths
/// (socket paths, inode numbers, shortened file names). Never used where an attacker's choice matters.
public enum StableHash {
    public static func fnv1a64<S: Sequence>(_ bytes: S) -> UInt64 where S.Element == UInt8 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}
