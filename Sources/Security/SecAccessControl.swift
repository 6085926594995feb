import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel

/// Access-control flags with Apple's bit values.
public struct SecAccessControlCreateFlags: OptionSet, Sendable {
    public let rawValue: CFOptionFlags
    public init(rawValue: CFOptionFlags) { self.rawValue = rawValue }

    public static let userPresence = SecAccessControlCreateFlags(rawValue: 1 << 0)
    public static let biometryAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
    public static let touchIDAny = biometryAny
    public static let biometryCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
    public static let touchIDCurrentSet = biometryCurrentSet
    public static let devicePasscode = SecAccessControlCreateFlags(rawValue: 1 << 4)
    public static let watch = SecAccessControlCreateFlags(rawValue: 1 << 5)
    public static let companion = watch
    public static let or = SecAccessControlCreateFlags(rawValue: 1 << 14)
    public static let and = SecAccessControlCreateFlags(rawValue: 1 << 15)
    public static let privateKeyUsage = SecAccessControlCreateFlags(rawValue: 1 << 30)
    public static let applicationPassword = SecAccessControlCreateFlags(rawValue: 1 << 31)
}

/// An access-control object: a protection class (kSecAttrAccessible… value) and flags.
/// Items take its protection class and keep its flags; reading the secret of an item with constraint
/// flags (user presence, biometry, passcode) fails with errSecInteractionNotAllowed when the caller
/// allows no UI, and otherwise counts as authenticated while the device is unlocked (docs/face-id.md).
public final class SecAccessControl: SecAccessControlProviding, @unchecked Sendable {
    public let protection: String
    public let flags: SecAccessControlCreateFlags

    init(protection: String, flags: SecAccessControlCreateFlags) {
        self.protection = protection
        self.flags = flags
    }

    package var protectionClass: String { protection }
    package var flagBits: UInt64 { UInt64(flags.rawValue) }
}

/// Apple's `SecAccessControlCreateWithFlags`: nil (and errSecParam in `error`) for an unknown protection.
public func SecAccessControlCreateWithFlags(
    _ allocator: CFAllocator?, _ protection: CFTypeRef, _ flags: SecAccessControlCreateFlags,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecAccessControl? {
    guard let raw = (protection as? String) ?? (protection as? NSString).map({ String($0) }),
        Accessibility(rawValue: raw) != nil
    else {
        CFBridge.report(SecStatus.param, "invalid protection class for access control", to: error)
        return nil
    }
    return SecAccessControl(protection: raw, flags: flags)
}
