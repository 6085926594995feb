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
