import Foundation
import Testing

/// A file that imports only Foundation, as Apple-platform code does, and still calls SecItem.
@Suite struct FoundationOnlyTests {
    @Test func secItemIsVisibleWithoutImportingSecurity() {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: uniqueService("foundation-only"),
        ]
        #expect(SecItemCopyMatching(query as CFDictionary, nil) == errSecItemNotFound)
    }
}
