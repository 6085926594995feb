/// SecAccessControlCreateFlags bits that do not ask for user authentication: the `or`/`and`
/// combinators and privateKeyUsage. Every other bit (user presence, biometry, device passcode, watch,
/// application password) is a constraint.
enum AccessControlBits {
    static let nonConstraints: Int64 = 1 << 14 | 1 << 15 | 1 << 30
}
