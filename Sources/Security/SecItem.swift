import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel

/// Adds an item (Apple's `SecItemAdd`).
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    SecItemSession.call { connection throws(KeychainError) in
        switch try ValueBridge.addition(attributes) {
        case .identity(let identity):
            let (value, query) = try IdentityAdd.add(identity, attributes, connection)
            if let value, let result { result.pointee = ValueBridge.result(value, for: query) }
        case .item(let request):
            let value = try connection.add(request)
            if let value, let result { result.pointee = ValueBridge.result(value, for: request) }
        }
    }
}

/// Finds items (Apple's `SecItemCopyMatching`).
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    SecItemSession.call { connection throws(KeychainError) in
        let request = try ValueBridge.dictionary(query)
        let value = try connection.copyMatching(request)
        if let value, let result {
            // Only a query that carried a context has one to look for (a second pass over the dictionary).
            let context =
                request[QueryKey.useAuthenticationContext] == nil
                ? nil : ValueBridge.authenticationContext(in: query as NSDictionary)
            result.pointee = ValueBridge.result(value, for: request, context: context)
        }
    }
}

/// Updates every matching item (Apple's `SecItemUpdate`).
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
    SecItemSession.call { connection throws(KeychainError) in
        try connection.update(try ValueBridge.dictionary(query), try ValueBridge.dictionary(attributesToUpdate))
    }
}

/// Deletes every matching item (Apple's `SecItemDelete`).
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
    SecItemSession.call { connection throws(KeychainError) in
        try connection.delete(try ValueBridge.dictionary(query))
    }
}

/// Where SecItem calls go: the engine a test bound to this task or process (``KeychainBinding``), else
/// ``UnboundCalls``: the vault named by `KEYCHAIN_VAULT` (default `$XDG_DATA_HOME/keychainfs/default`, made on
/// first use without a passcode; never while a test kit device lives in the process, unless made for tests),
/// through its daemon if one serves it, else in this process; access groups from `KEYCHAIN_ACCESS_GROUPS`.
/// Each call chooses daemon or in-process (``KeychainConnection``), and a process that has used a daemon
/// keeps using one.
enum SecItemSession {
    static func call(_ body: (KeychainConnection) throws(KeychainError) -> Void) -> OSStatus {
        if let bound = KeychainBinding.current { return status(of: body, bound.connection) }
        do {
            return status(of: body, try UnboundCalls.connection())
        } catch {
            return error.status
        }
    }

    private static func status(
        of body: (KeychainConnection) throws(KeychainError) -> Void, _ connection: KeychainConnection
    ) -> OSStatus {
        do {
            try body(connection)
            return errSecSuccess
        } catch {
            return error.status
        }
    }
}
