import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel

/// Converts between the Foundation objects of a CFDictionary and the engine's ``KeychainValue``s.
/// Dictionaries built in Swift keep native values (`Bool`, `Int`, `Data`, `String`) inside NSDictionary
/// on Linux; bridged ones hold NSNumber, NSData, NSString: both are accepted.
enum ValueBridge {
    /// A query or attribute dictionary for the engine. Access-control objects become their protection
    /// class; an authentication context that forbids interaction becomes kSecUseAuthenticationUIFail.
    /// A kSecValueRef is expanded (see ``RefObjectBridge``): into the object's content for SecItemAdd.
    static func dictionary(_ dictionary: NSDictionary, forAdd: Bool = false, depth: Int = 0) throws(KeychainError)
        -> KeychainDictionary
    {
        try convert(dictionary, forAdd: forAdd, depth: depth, takingIdentity: false).item
    }

    /// What a SecItemAdd dictionary adds.
    enum Addition {
        /// Its kSecValueRef is an identity: both halves are added (``IdentityAdd``).
        case identity(SecIdentity)
        case item(KeychainDictionary)
    }

    /// SecItemAdd's dictionary, converted in the same one pass that finds an identity in it (a pass of its
    /// own through the dictionary's iterator measured: a tenth of an add).
    static func addition(_ dictionary: NSDictionary) throws(KeychainError) -> Addition {
        let converted = try convert(dictionary, forAdd: true, depth: 0, takingIdentity: true)
        return converted.identity.map { .identity($0) } ?? .item(converted.item)
    }

    /// `identity`: kSecValueRef when it is an identity and `takingIdentity`, left unexpanded.
    private static func convert(_ dictionary: NSDictionary, forAdd: Bool, depth: Int, takingIdentity: Bool)
        throws(KeychainError) -> (item: KeychainDictionary, identity: SecIdentity?)
    {
        var result: KeychainDictionary = [:]
        var accessControl: SecAccessControl?
        var valueRef: Any?
        for (key, boxed) in entries(dictionary) {
            let value = Swift.type(of: boxed) == AnyHashable.self ? (boxed as! AnyHashable).base : boxed
            guard let name = (key as? String) ?? (key as? NSString).map({ String($0) }) else {
                throw KeychainError(SecStatus.param, "dictionary keys must be strings")
            }
            if name == Attributes.accessControl.code {
                guard let control = value as? SecAccessControl else {
                    throw KeychainError(SecStatus.param, "kSecAttrAccessControl must be a SecAccessControl")
                }
                accessControl = control
                continue
            }
            if name == QueryKey.valueRef {
                valueRef = value
                continue
            }
            if name == QueryKey.useAuthenticationContext {
                if let context = value as? SecAuthenticationContextProviding {
                    if context.interactionNotAllowed {
                        result[QueryKey.useAuthenticationUI] = .string(QueryKey.useAuthenticationUIFail)
                    }
                    result[QueryKey.useAuthenticationContext] = .dictionary(context.authenticationContext)
                }
                continue
            }
            if name == QueryKey.matchItemList, let items = (value as? [Any]) ?? (value as? NSArray).map({ Array($0) }) {
                var references: [KeychainValue] = []
                for item in items {
                    if let reference = try RefObjectBridge.persistentReference(item) {
                        references.append(reference)
                    } else {
                        references.append(try self.value(item, depth: depth + 1))
                    }
                }
                result[name] = .array(references)
                continue
            }
            result[name] = try self.value(value, depth: depth)
        }
        if takingIdentity, let identity = valueRef as? SecIdentity { return (result, identity) }
        if let valueRef { try RefObjectBridge.expand(&result, valueRef, forAdd: forAdd) }
        if let accessControl {
            try AccessControlValue.apply(
                protection: accessControl.protection, flags: UInt64(accessControl.flags.rawValue), to: &result)
        }
        return (result, nil)
    }

    /// The key-value pairs of `dictionary`, read in one pass over its storage: its iterator looks every
    /// key up again (`object(forKey:)`, hashing the NSString: measured: two thirds of a call's conversion).
    private static func entries(_ dictionary: NSDictionary) -> [(key: Any, value: Any)] {
        var entries: [(key: Any, value: Any)] = []
        entries.reserveCapacity(dictionary.count)
        dictionary.enumerateKeysAndObjects { key, value, _ in entries.append((key, value)) }
        return entries
    }

    /// How deep arrays and dictionaries may nest in a call's dictionary: keychain dictionaries are flat,
    /// and a hostile value nested thousands deep must not overflow the stack.
    static let maximumDepth = 16

    /// One value for the engine. Numbers must convert exactly to a 64-bit integer (NaN, ±infinity,
    /// fractions, 1e30 and UInt64.max are errSecParam, never clamped, wrapped or trapped on).
    static func value(_ value: Any, depth: Int = 0) throws(KeychainError) -> KeychainValue {
        guard depth < maximumDepth else {
            throw KeychainError(SecStatus.param, "values nest more than \(maximumDepth) levels deep")
        }
        // `[String: AnyHashable]` queries hold their values boxed.
        if Swift.type(of: value) == AnyHashable.self, let boxed = value as? AnyHashable {
            return try self.value(boxed.base, depth: depth)
        }
        // The common types first, each by a check of its type: a failed cast of a string to each integer
        // type below costs a conformance lookup (measured: a fifth of what the module added to a lookup).
        let type = Swift.type(of: value)
        if type == String.self, let s = value as? String { return .string(s) }
        if type is NSString.Type, let s = value as? NSString { return .string(String(s)) }
        if type == Data.self, let d = value as? Data { return .data(d) }
        if type == Bool.self, let b = value as? Bool { return .bool(b) }
        if type is NSNumber.Type, let number = value as? NSNumber { return try self.number(number) }
        switch value {
        case let n as Int: return .number(Int64(n))
        case let n as Int64: return .number(n)
        case let n as Int32: return .number(Int64(n))
        case let n as Int16: return .number(Int64(n))
        case let n as Int8: return .number(Int64(n))
        case let n as UInt32: return .number(Int64(n))
        case let n as UInt16: return .number(Int64(n))
        case let n as UInt8: return .number(Int64(n))
        case let n as UInt: return try exact(Int64(exactly: n), n)
        case let n as UInt64: return try exact(Int64(exactly: n), n)
        case let n as Double: return try exact(Int64(exactly: n), n)
        case let n as Float: return try exact(Int64(exactly: n), n)
        case let s as String: return .string(s)
        case let s as NSString: return .string(String(s))
        case let d as Data: return .data(d)
        case let d as NSData: return .data(Data(d))
        case let d as Date: return try date(d.timeIntervalSinceReferenceDate)
        case let d as NSDate: return try date(d.timeIntervalSinceReferenceDate)
        case let a as NSArray:
            return .array(try a.map { element throws(KeychainError) in try self.value(element, depth: depth + 1) })
        case let d as NSDictionary: return .dictionary(try dictionary(d, depth: depth + 1))
        case let a as [Any]:
            return .array(try a.map { element throws(KeychainError) in try self.value(element, depth: depth + 1) })
        default: throw KeychainError(SecStatus.param, "unsupported value type \(Swift.type(of: value))")
        }
    }

    /// An NSNumber by the C type it holds: booleans stay booleans, the rest must be exact integers.
    private static func number(_ number: NSNumber) throws(KeychainError) -> KeychainValue {
        switch String(cString: number.objCType) {
        case "B": return .bool(number.boolValue)
        // CFBoolean's type
        case "c" where number.int8Value == 0 || number.int8Value == 1: return .bool(number.boolValue)
        case "f", "d": return try exact(Int64(exactly: number.doubleValue), number.doubleValue)
        case "C", "S", "I", "L", "Q": return try exact(Int64(exactly: number.uint64Value), number.uint64Value)
        default: return .number(number.int64Value)
        }
    }

    private static func exact(_ converted: Int64?, _ given: some CustomStringConvertible) throws(KeychainError)
        -> KeychainValue
    {
        guard let converted else {
            throw KeychainError(SecStatus.param, "the number \(given) is not an integer a keychain attribute can hold")
        }
        return .number(converted)
    }

    private static func date(_ interval: TimeInterval) throws(KeychainError) -> KeychainValue {
        guard interval.isFinite else { throw KeychainError(SecStatus.param, "a date must be finite") }
        return .date(Date(timeIntervalSinceReferenceDate: interval))
    }

    /// What a SecItem call hands back for `query`: with kSecReturnRef as its only return key, ref objects
    /// (one, or an array); otherwise ``object(_:)``.
    /// `context`: the call's kSecUseAuthenticationContext, which a key reference keeps for its operations.
    static func result(
        _ value: KeychainValue, for query: KeychainDictionary, context: (any SecAuthenticationContextProviding)? = nil
    ) -> AnyObject {
        // Asked first: most calls return data or attributes (a filtered set of the keys was 3 % of a lookup).
        guard query[QueryKey.returnRef] == .bool(true),
            QueryKey.returnKeys.allSatisfy({ $0 == QueryKey.returnRef || query[$0] != .bool(true) })
        else { return object(value) }
        if case .array(let items) = value {
            return NSArray(
                array: items.map { RefObjectBridge.object($0, authenticationContext: context) ?? object($0) })
        }
        return RefObjectBridge.object(value, authenticationContext: context) ?? object(value)
    }

    /// The LAContext a SecItem dictionary passes as kSecUseAuthenticationContext, if any.
    static func authenticationContext(in dictionary: NSDictionary) -> (any SecAuthenticationContextProviding)? {
        for (key, value) in entries(dictionary)
        where ((key as? String) ?? (key as? NSString).map { String($0) }) == QueryKey.useAuthenticationContext {
            return value as? SecAuthenticationContextProviding
        }
        return nil
    }

    /// What a SecItem call hands back: NSData, NSString, NSNumber, NSDate, NSArray, NSDictionary.
    static func object(_ value: KeychainValue) -> AnyObject {
        switch value {
        case .string(let s): NSString(string: s)
        case .data(let d): NSData(data: d)
        case .number(let n): NSNumber(value: n)
        case .bool(let b): NSNumber(value: b)
        case .date(let d): NSDate(timeIntervalSinceReferenceDate: d.timeIntervalSinceReferenceDate)
        case .array(let a): NSArray(array: a.map(object))
        case .dictionary(let d): NSDictionary(dictionary: resultDictionary(d))
        }
    }

    /// A returned attribute dictionary: kSecAttrAccessControl comes back as a SecAccessControl object.
    private static func resultDictionary(_ d: KeychainDictionary) -> [String: AnyObject] {
        var objects = d.mapValues(object)
        if let description = d[QueryKey.valueRef], let reference = RefObjectBridge.object(description) {
            objects[QueryKey.valueRef] = reference
        }
        if case .number(let flags)? = d[Attributes.accessControl.code],
            let protection = d[Attributes.accessible.code]?.stringValue
        {
            objects[Attributes.accessControl.code] = SecAccessControl(
                protection: protection,
                flags: SecAccessControlCreateFlags(rawValue: CFOptionFlags(UInt64(bitPattern: flags))))
        }
        return objects
    }
}
