import Foundation
import KeychainEngine

/// Converts between the Foundation objects of a CFDictionary and the engine's ``KeychainValue``s.
/// Dictionaries built in Swift keep native values (`Bool`, `Int`, `Data`, `String`) inside NSDictionary
/// on Linux; bridged ones hold NSNumber, NSData, NSString: both are accepted.
enum ValueBridge {
    /// A query or attribute dictionary for the engine. Access-control objects become their protection
    /// class; an authentication context that forbids interaction becomes kSecUseAuthenticationUIFail.
    /// A kSecValueRef is expanded (see ``RefObjectBridge``): into the object's content for SecItemAdd.
    static func dictionary(_ dictionary: NSDictionary, forAdd: Bool = false) throws(KeychainError) -> KeychainDictionary {
        var result: KeychainDictionary = [:]
        var accessControl: SecAccessControl?
        var valueRef: Any?
        for (key, value) in dictionary {
            guard let name = (key as? String) ?? (key as? NSString).map({ String($0) }) else {
                throw KeychainError(SecStatus.param, "dictionary keys must be strings")
            }
            if name == "accc" {
                guard let control = value as? SecAccessControl else { throw KeychainError(SecStatus.param, "kSecAttrAccessControl must be a SecAccessControl") }
                accessControl = control
                continue
            }
            if name == RawKey.valueRef {
                valueRef = value
                continue
            }
            if name == "u_AuthCtx" {
                if let context = value as? SecAuthenticationContextProviding, context.interactionNotAllowed {
                    result["u_AuthUI"] = .string("u_AuthUIF")
                }
                continue
            }
            if name == RawKey.matchItemList, let items = (value as? [Any]) ?? (value as? NSArray).map({ Array($0) }) {
                var references: [KeychainValue] = []
                for item in items {
                    if let reference = try RefObjectBridge.persistentReference(item) { references.append(reference) } else { references.append(try self.value(item)) }
                }
                result[name] = .array(references)
                continue
            }
            result[name] = try self.value(value)
        }
        if let valueRef { try RefObjectBridge.expand(&result, valueRef, forAdd: forAdd) }
        if let accessControl {
            if let given = result["pdmn"], given != .string(accessControl.protection) {
                throw KeychainError(SecStatus.param, "conflicting kSecAttrAccessible and kSecAttrAccessControl")
            }
            result["pdmn"] = .string(accessControl.protection)
            result["accc"] = .number(Int64(bitPattern: UInt64(accessControl.flags.rawValue)))
        }
        return result
    }

    static func value(_ value: Any) throws(KeychainError) -> KeychainValue {
        if Swift.type(of: value) == Bool.self, let b = value as? Bool { return .bool(b) }
        if let number = value as? NSNumber, Swift.type(of: value) is NSNumber.Type {
            switch String(cString: number.objCType) {
            case "c", "B": return .bool(number.boolValue)
            case "f", "d": return number.doubleValue.rounded() == number.doubleValue ? .number(number.int64Value) : .number(Int64(number.doubleValue))
            default: return .number(number.int64Value)
            }
        }
        switch value {
        case let n as Int: return .number(Int64(n))
        case let n as Int64: return .number(n)
        case let n as Int32: return .number(Int64(n))
        case let n as UInt32: return .number(Int64(n))
        case let n as UInt: return .number(Int64(n))
        case let s as String: return .string(s)
        case let s as NSString: return .string(String(s))
        case let d as Data: return .data(d)
        case let d as NSData: return .data(Data(d))
        case let d as Date: return .date(d)
        case let d as NSDate: return .date(Date(timeIntervalSinceReferenceDate: d.timeIntervalSinceReferenceDate))
        case let a as NSArray: return .array(try a.map { element throws(KeychainError) in try self.value(element) })
        case let d as NSDictionary: return .dictionary(try dictionary(d))
        case let a as [Any]: return .array(try a.map { element throws(KeychainError) in try self.value(element) })
        default: throw KeychainError(SecStatus.param, "unsupported value type \(Swift.type(of: value))")
        }
    }

    /// What a SecItem call hands back for `query`: with kSecReturnRef as its only return key, ref objects
    /// (one, or an array); otherwise ``object(_:)``.
    static func result(_ value: KeychainValue, for query: KeychainDictionary) -> AnyObject {
        let returnKeys = RawKey.returnKeys.filter { query[$0] == .bool(true) }
        guard returnKeys == [RawKey.returnRef] else { return object(value) }
        if case .array(let items) = value { return NSArray(array: items.map { RefObjectBridge.object($0) ?? object($0) }) }
        return RefObjectBridge.object(value) ?? object(value)
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
        if let description = d[RawKey.valueRef], let reference = RefObjectBridge.object(description) { objects[RawKey.valueRef] = reference }
        if case .number(let flags)? = d["accc"], let protection = d["pdmn"]?.stringValue {
            objects["accc"] = SecAccessControl(protection: protection, flags: SecAccessControlCreateFlags(rawValue: CFOptionFlags(UInt64(bitPattern: flags))))
        }
        return objects
    }
}

/// Implemented by LocalAuthentication's LAContext, so kSecUseAuthenticationContext can be honoured
/// without Security depending on LocalAuthentication.
public protocol SecAuthenticationContextProviding: AnyObject {
    /// LAContext.interactionNotAllowed: fail instead of prompting.
    var interactionNotAllowed: Bool { get }
}

/// The engine's table of raw key names: its name, `SecKey`, is Apple's key class in this module.
typealias RawKey = KeychainEngine.SecKey
