import Foundation
import Testing
@testable import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore

/// Key material is wiped the moment its class becomes unavailable (docs/spec.md §3), checked on the key objects.
@Suite struct KeyWipingTests {
    @Test func lockWipesClassAKeysAndRebootWipesClassC() throws {
        let v = try TestVault()
        try v.keychain.setPasscode(Data("1234".utf8))
        let a = try v.keychain.protection.withLock { try $0.keys(for: .whenUnlocked) }
        let c = try v.keychain.protection.withLock { try $0.keys(for: .afterFirstUnlock) }
        let d = try v.keychain.protection.withLock { try $0.keys(for: .always) }
        v.keychain.lockDevice()
        #expect(a.classKey.isWiped && a.metadataKey.isWiped, "lock wipes class A keys and class-A metadata keys")
        #expect(!c.classKey.isWiped && !d.classKey.isWiped)
        v.keychain.rebootDevice()
        #expect(c.classKey.isWiped && c.metadataKey.isWiped, "reboot wipes class C")
        #expect(!d.classKey.isWiped, "class D stays")
    }
}
