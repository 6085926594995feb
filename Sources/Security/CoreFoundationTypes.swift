import CoreFoundation
import Foundation
import KeychainFSEngine
import KeychainFSModel
// CFTypeRef is AnyObject in both modules, yet two typealiases of it are ambiguous in a file that imports
// both: re-export CoreFoundation's one declaration instead.
@_exported import typealias CoreFoundation.CFTypeRef

// The Core Foundation names keychain code writes. Linux's CoreFoundation has the real types, but they do
// not bridge to Swift (`[String: Any]() as CFDictionary` and `kSecClass as String` fail with them), so the
// names a client converts with `as` stand for Foundation's classes, as on Apple platforms they bridge to
// the same values. Every other name is CoreFoundation's own type, so a file that also imports
// CoreFoundation sees one type, not two (see CoreFoundationFunctions.swift for the functions).

public typealias CFString = NSString
public typealias CFDictionary = NSDictionary
public typealias CFMutableDictionary = NSMutableDictionary
public typealias CFArray = NSArray
public typealias CFData = NSData
public typealias CFBoolean = NSNumber
public typealias CFNumber = NSNumber
public typealias CFDate = NSDate

/// CoreFoundation's own: the same type whether a file imports CoreFoundation or not.
public typealias CFError = CoreFoundation.CFError
public typealias CFAllocator = CoreFoundation.CFAllocator
public typealias CFIndex = CoreFoundation.CFIndex
public typealias CFOptionFlags = CoreFoundation.CFOptionFlags
public typealias CFTypeID = CoreFoundation.CFTypeID
public typealias OSStatus = KeychainFSModel.OSStatus

// Values CoreFoundation also declares are disfavoured: a file that imports CoreFoundation gets its
// value; a file that does not (the usual case) gets these.

/// The default allocator (NULL, as in CoreFoundation); allocators are accepted and ignored here.
@_disfavoredOverload public nonisolated(unsafe) let kCFAllocatorDefault: CFAllocator! = CoreFoundation
    .kCFAllocatorDefault
/// `true` as a CFBoolean.
@_disfavoredOverload public let kCFBooleanTrue: CFBoolean! = NSNumber(value: true)
/// `false` as a CFBoolean.
@_disfavoredOverload public let kCFBooleanFalse: CFBoolean! = NSNumber(value: false)
/// The error domain of OSStatus codes (errors from SecKey and SecAccessControl calls).
@_disfavoredOverload public nonisolated(unsafe) let kCFErrorDomainOSStatus: CFString! = "NSOSStatusErrorDomain"
/// The Info.plist key of the bundle identifier (`Bundle.main.infoDictionary?[kCFBundleIdentifierKey as String]`).
@_disfavoredOverload public nonisolated(unsafe) let kCFBundleIdentifierKey: CFString! = "CFBundleIdentifier"
/// The userInfo key of an error's description.
@_disfavoredOverload public nonisolated(unsafe) let kCFErrorLocalizedDescriptionKey: CFString! =
    "NSLocalizedDescription"
/// Success.
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
