import Foundation

/// The operations a key can be asked about (Apple's `SecKeyOperationType`, same raw values).
public enum SecKeyOperationType: Int, Sendable {
    case sign = 0
    case verify = 1
    case encrypt = 2
    case decrypt = 3
    case keyExchange = 4
}

/// Parameters of ``SecKeyCopyKeyExchangeResult`` (Apple's `SecKeyKeyExchangeParameter`).
public struct SecKeyKeyExchangeParameter: RawRepresentable, Hashable, @unchecked Sendable {
    /// Apple's key string.
    public let rawValue: CFString
    /// The parameter named `rawValue`.
    public init(rawValue: CFString) { self.rawValue = rawValue }
    /// The parameter named `rawValue`.
    public init(_ rawValue: CFString) { self.rawValue = rawValue }

    /// The number of bytes the X9.63 KDF derives (a number; required by the KDF variants).
    public static let requestedSize = SecKeyKeyExchangeParameter("requestedSize")
    /// Data mixed into the X9.63 KDF (optional).
    public static let sharedInfo = SecKeyKeyExchangeParameter("sharedInfo")

    public static func == (lhs: Self, rhs: Self) -> Bool { String(lhs.rawValue) == String(rhs.rawValue) }
    public func hash(into hasher: inout Hasher) { hasher.combine(String(rawValue)) }
}

/// `SecKeyKeyExchangeParameter.requestedSize`.
public let kSecKeyKeyExchangeParameterRequestedSize = SecKeyKeyExchangeParameter.requestedSize
/// `SecKeyKeyExchangeParameter.sharedInfo`.
public let kSecKeyKeyExchangeParameterSharedInfo = SecKeyKeyExchangeParameter.sharedInfo
