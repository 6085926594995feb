import Foundation
import KeychainEngine

// The Core Foundation names keychain code writes, mapped onto Foundation's classes (Linux has no
// CoreFoundation API for clients). `as CFDictionary`, `result as? Data` and `as? [String: Any]` work
// as on Apple platforms.

public typealias CFTypeRef = AnyObject
public typealias CFString = NSString
public typealias CFDictionary = NSDictionary
public typealias CFMutableDictionary = NSMutableDictionary
public typealias CFArray = NSArray
public typealias CFData = NSData
public typealias CFBoolean = NSNumber
public typealias CFNumber = NSNumber
public typealias CFDate = NSDate
public typealias CFError = NSError
public typealias CFIndex = Int
public typealias CFOptionFlags = UInt
public typealias OSStatus = KeychainEngine.OSStatus

/// Allocators do not exist here; the parameter is accepted and ignored.
public final class CFAllocator: @unchecked Sendable {
    init() {}
}

public let kCFAllocatorDefault: CFAllocator! = CFAllocator()
public let kCFBooleanTrue: CFBoolean! = NSNumber(value: true)
public let kCFBooleanFalse: CFBoolean! = NSNumber(value: false)
public let noErr: OSStatus = 0

/// On Apple platforms an NSString hashes and compares equal to the Swift String with its characters
/// (`AnyHashable(kSecAttrAccount) == AnyHashable("acct")`); corelibs Foundation does not, so keys written
/// `kSecAttrAccount` and `kSecAttrAccount as String` would be different dictionary keys. This restores
/// Apple's behaviour.
extension NSString: @retroactive _HasCustomAnyHashableRepresentation {
    public func _toCustomAnyHashable() -> AnyHashable? {
        AnyHashable(String._unconditionallyBridgeFromObjectiveC(self))
    }
}

/// A `kSec…` constant: its raw value from the engine's table (a missing name is a bug caught by tests).
func secConstant(_ name: String) -> CFString {
    guard let value = SecConstantTable.value(named: name) else { fatalError("no raw value for \(name)") }
    return NSString(string: value)
}
