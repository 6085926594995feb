import CoreFoundation
import Foundation

// The CoreFoundation functions keychain code calls on what this module hands back. A file that does not
// import CoreFoundation (the usual case) gets these; one that does gets CoreFoundation's own where they
// do the same (these are disfavoured), and these where only these type-check (`CFErrorGetDomain(e) as
// String`: CoreFoundation's strings do not bridge on Linux).

/// The error's domain (kCFErrorDomainOSStatus for this module's errors).
@_disfavoredOverload public func CFErrorGetDomain(_ err: CFError!) -> CFString! {
    CoreFoundation.CFErrorGetDomain(err).map { NSString(string: CFBridge.string($0)) }
}

/// The error's code (an OSStatus for this module's errors).
@_disfavoredOverload public func CFErrorGetCode(_ err: CFError!) -> CFIndex {
    CoreFoundation.CFErrorGetCode(err)
}

/// The error's userInfo (its description under kCFErrorLocalizedDescriptionKey).
@_disfavoredOverload public func CFErrorCopyUserInfo(_ err: CFError!) -> CFDictionary! {
    CoreFoundation.CFErrorCopyUserInfo(err).map(CFBridge.dictionary) ?? NSDictionary()
}

/// The error's description.
@_disfavoredOverload public func CFErrorCopyDescription(_ err: CFError!) -> CFString! {
    CoreFoundation.CFErrorCopyDescription(err).map { NSString(string: CFBridge.string($0)) }
}

/// The type of `cf`: this module's ref objects have the ids their `…GetTypeID()` return; anything else
/// asks CoreFoundation.
@_disfavoredOverload public func CFGetTypeID(_ cf: CFTypeRef!) -> CFTypeID {
    (cf as? any SecTypeIdentified).map { type(of: $0).typeID } ?? CoreFoundation.CFGetTypeID(cf)
}

/// CFError is Swift's `Error` on Apple platforms (`throw error!.takeRetainedValue() as Error`); the
/// domain, code and description carry over to `as NSError`.
extension CoreFoundation.CFError: @retroactive Error {
    public var _domain: String { CoreFoundation.CFErrorGetDomain(self).map(CFBridge.string) ?? "" }
    public var _code: Int { CoreFoundation.CFErrorGetCode(self) }
    public var _userInfo: AnyObject? { CoreFoundation.CFErrorCopyUserInfo(self).map(CFBridge.dictionary) }
}

/// CFType semantics: equal by `CFEqual`, hashed by `CFHash`, so errors go into `[String: AnyHashable]`.
extension CoreFoundation.CFError: @retroactive Equatable, @retroactive Hashable {
    public static func == (lhs: CoreFoundation.CFError, rhs: CoreFoundation.CFError) -> Bool { CFEqual(lhs, rhs) }
    public func hash(into hasher: inout Hasher) { hasher.combine(CFHash(self)) }
}

/// Conversions of CoreFoundation's values, which do not bridge to Swift on Linux.
enum CFBridge {
    /// A CFError with an OSStatus, in kCFErrorDomainOSStatus, with `message` as its description (under
    /// `key`: SecTrust's errors carry it as their localized description, which CFErrorCopyDescription
    /// returns as it is).
    static func error(
        _ status: OSStatus, _ message: String, key: CoreFoundation.CFString = kCFErrorDescriptionKey
    ) -> CoreFoundation.CFError {
        let description = cfString(message)
        var keys: [UnsafeRawPointer?] = [UnsafeRawPointer(Unmanaged.passUnretained(key).toOpaque())]
        var values: [UnsafeRawPointer?] = [UnsafeRawPointer(Unmanaged.passUnretained(description).toOpaque())]
        return CFErrorCreateWithUserInfoKeysAndValues(
            nil, CoreFoundation.kCFErrorDomainOSStatus, CFIndex(status), &keys, &values, 1)
    }

    /// Stores a new error in an Apple-style `error` out-parameter.
    static func report(_ status: OSStatus, _ message: String, to pointer: UnsafeMutablePointer<Unmanaged<CFError>?>?) {
        pointer?.pointee = Unmanaged.passRetained(error(status, message))
    }

    static func cfString(_ string: String) -> CoreFoundation.CFString {
        CFStringCreateWithCString(nil, string, CFStringBuiltInEncodings.UTF8.rawValue)
    }

    static func string(_ string: CoreFoundation.CFString) -> String {
        let length = CFStringGetLength(string)
        var units = [UniChar](repeating: 0, count: length)
        CFStringGetCharacters(string, CFRangeMake(0, length), &units)
        return String(decoding: units, as: UTF16.self)
    }

    /// A CF dictionary's string keys with string, number and boolean values; other values are left out.
    static func dictionary(_ dictionary: CoreFoundation.CFDictionary) -> NSDictionary {
        let count = CFDictionaryGetCount(dictionary)
        var keys = [UnsafeRawPointer?](repeating: nil, count: count)
        var values = [UnsafeRawPointer?](repeating: nil, count: count)
        CFDictionaryGetKeysAndValues(dictionary, &keys, &values)
        let result = NSMutableDictionary()
        for (key, value) in zip(keys, values) {
            guard let key, let value,
                CoreFoundation.CFGetTypeID(Unmanaged<AnyObject>.fromOpaque(key).takeUnretainedValue())
                    == CFStringGetTypeID()
            else { continue }
            let name = string(Unmanaged<CoreFoundation.CFString>.fromOpaque(key).takeUnretainedValue())
            switch CoreFoundation.CFGetTypeID(Unmanaged<AnyObject>.fromOpaque(value).takeUnretainedValue()) {
            case CFStringGetTypeID():
                result[name] = string(Unmanaged<CoreFoundation.CFString>.fromOpaque(value).takeUnretainedValue())
            case CFBooleanGetTypeID():
                result[name] = CFBooleanGetValue(
                    Unmanaged<CoreFoundation.CFBoolean>.fromOpaque(value).takeUnretainedValue())
            case CFNumberGetTypeID():
                var number: Int64 = 0
                CFNumberGetValue(
                    Unmanaged<CoreFoundation.CFNumber>.fromOpaque(value).takeUnretainedValue(), .sInt64Type, &number)
                result[name] = number
            default: continue
            }
        }
        return result
    }
}

/// The type id of CFErrors.
@_disfavoredOverload public func CFErrorGetTypeID() -> CFTypeID { CoreFoundation.CFErrorGetTypeID() }
