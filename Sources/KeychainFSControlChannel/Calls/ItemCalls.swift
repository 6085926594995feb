import Foundation
import KeychainFSEngine
import KeychainFSModel

// The four SecItem calls and the Secure Enclave's, as the daemon serves them for API clients.

/// SecItemAdd.
package struct ItemAdd: ValueReplyCall, QueryCall {
    package static let command = ControlCommand.itemAdd
    package let query: KeychainDictionary
    package init(query: KeychainDictionary) { self.query = query }
}

/// SecItemCopyMatching.
package struct ItemCopyMatching: ValueReplyCall, QueryCall {
    package static let command = ControlCommand.itemCopyMatching
    package let query: KeychainDictionary
    package init(query: KeychainDictionary) { self.query = query }
}

/// SecItemUpdate.
package struct ItemUpdate: EmptyReplyCall {
    package static let command = ControlCommand.itemUpdate
    package let query: KeychainDictionary
    package let attributes: KeychainDictionary
    package init(query: KeychainDictionary, attributes: KeychainDictionary) {
        self.query = query
        self.attributes = attributes
    }
    package init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        query = try arguments.dictionary("query")
        attributes = try arguments.dictionary("attributes")
    }
    package var arguments: KeychainDictionary { ["query": .dictionary(query), "attributes": .dictionary(attributes)] }
    package var auditedItem: KeychainDictionary? { query }
}

/// SecItemDelete.
package struct ItemDelete: EmptyReplyCall, QueryCall {
    package static let command = ControlCommand.itemDelete
    package let query: KeychainDictionary
    package init(query: KeychainDictionary) { self.query = query }
}

/// SecItemAdd of an identity: its certificate and private key, both or neither (``Keychain/addIdentity(certificate:key:caller:)``).
package struct ItemAddIdentity: EmptyReplyCall {
    package static let command = ControlCommand.itemAddIdentity
    package let certificate: KeychainDictionary
    package let key: KeychainDictionary
    package init(certificate: KeychainDictionary, key: KeychainDictionary) {
        self.certificate = certificate
        self.key = key
    }
    package init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        certificate = try arguments.dictionary("certificate")
        key = try arguments.dictionary("key")
    }
    package var arguments: KeychainDictionary { ["certificate": .dictionary(certificate), "key": .dictionary(key)] }
    package var auditedItem: KeychainDictionary? { certificate }
}

/// A simulated Secure Enclave request (generate, sign, key exchange: `Keychain.secureEnclave`).
package struct SecureEnclaveCall: ValueReplyCall {
    package static let command = ControlCommand.keySecureEnclave
    package let operation: KeychainDictionary
    package init(operation: KeychainDictionary) { self.operation = operation }
    package init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        operation = try arguments.dictionary("request")
    }
    package var arguments: KeychainDictionary { ["request": .dictionary(operation)] }
}
