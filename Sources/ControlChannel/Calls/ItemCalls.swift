import Foundation
import KeychainEngine
import KeychainModel

// The four SecItem calls and the Secure Enclave's, as the daemon serves them for API clients.

/// SecItemAdd.
public struct ItemAdd: ValueReplyCall {
    public static let command = ControlCommand.itemAdd
    public let query: KeychainDictionary
    public init(query: KeychainDictionary) { self.query = query }
    public init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        query = try arguments.dictionary("query")
    }
    public var arguments: KeychainDictionary { ["query": .dictionary(query)] }
    public var auditedItem: KeychainDictionary? { query }
}

/// SecItemCopyMatching.
public struct ItemCopyMatching: ValueReplyCall {
    public static let command = ControlCommand.itemCopyMatching
    public let query: KeychainDictionary
    public init(query: KeychainDictionary) { self.query = query }
    public init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        query = try arguments.dictionary("query")
    }
    public var arguments: KeychainDictionary { ["query": .dictionary(query)] }
    public var auditedItem: KeychainDictionary? { query }
}

/// SecItemUpdate.
public struct ItemUpdate: EmptyReplyCall {
    public static let command = ControlCommand.itemUpdate
    public let query: KeychainDictionary
    public let attributes: KeychainDictionary
    public init(query: KeychainDictionary, attributes: KeychainDictionary) {
        self.query = query
        self.attributes = attributes
    }
    public init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        query = try arguments.dictionary("query")
        attributes = try arguments.dictionary("attributes")
    }
    public var arguments: KeychainDictionary { ["query": .dictionary(query), "attributes": .dictionary(attributes)] }
    public var auditedItem: KeychainDictionary? { query }
}

/// SecItemDelete.
public struct ItemDelete: EmptyReplyCall {
    public static let command = ControlCommand.itemDelete
    public let query: KeychainDictionary
    public init(query: KeychainDictionary) { self.query = query }
    public init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        query = try arguments.dictionary("query")
    }
    public var arguments: KeychainDictionary { ["query": .dictionary(query)] }
    public var auditedItem: KeychainDictionary? { query }
}

/// SecItemAdd of an identity: its certificate and private key, both or neither (``Keychain/addIdentity(certificate:key:caller:)``).
public struct ItemAddIdentity: EmptyReplyCall {
    public static let command = ControlCommand.itemAddIdentity
    public let certificate: KeychainDictionary
    public let key: KeychainDictionary
    public init(certificate: KeychainDictionary, key: KeychainDictionary) {
        self.certificate = certificate
        self.key = key
    }
    public init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        certificate = try arguments.dictionary("certificate")
        key = try arguments.dictionary("key")
    }
    public var arguments: KeychainDictionary { ["certificate": .dictionary(certificate), "key": .dictionary(key)] }
    public var auditedItem: KeychainDictionary? { certificate }
}

/// A simulated Secure Enclave request (generate, sign, key exchange: `Keychain.secureEnclave`).
public struct SecureEnclaveCall: ValueReplyCall {
    public static let command = ControlCommand.keySecureEnclave
    public let operation: KeychainDictionary
    public init(operation: KeychainDictionary) { self.operation = operation }
    public init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        operation = try arguments.dictionary("request")
    }
    public var arguments: KeychainDictionary { ["request": .dictionary(operation)] }
}
