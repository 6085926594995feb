import Foundation
import KeychainTesting
import Security
import Testing

/// Apps on one device: their access groups decide what they see.
@Suite struct AppTests {
    static let mail = App(
        bundleID: "com.example.mail", accessGroups: ["TEAM.com.example.mail", "TEAM.com.example.shared"])
    static let widget = App(
        bundleID: "com.example.widget", accessGroups: ["TEAM.com.example.widget", "TEAM.com.example.shared"])
    static let other = App(bundleID: "org.other.app")

    static func save(_ token: String, group: String? = nil) -> OSStatus {
        var add: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: TokenCode.service,
            kSecAttrAccount as String: group ?? "me", kSecValueData as String: Data(token.utf8),
        ]
        if let group { add[kSecAttrAccessGroup as String] = group }
        return SecItemAdd(add as CFDictionary, nil)
    }

    static func group(account: String = "me") -> String? {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: TokenCode.service,
            kSecAttrAccount as String: account, kSecReturnAttributes as String: true,
        ]
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess else { return nil }
        return (result as? [String: Any])?[kSecAttrAccessGroup as String] as? String
    }

    @Test func firstGroupIsTheDefaultAndALackingOneIsMissingEntitlement() throws {
        let device = try SimulatedDevice()
        device.run(as: Self.mail) {
            #expect(Self.save("t") == errSecSuccess)
            #expect(Self.group() == "TEAM.com.example.mail")
            #expect(Self.save("t", group: "TEAM.com.example.widget") == errSecMissingEntitlement)
            #expect(SimulatedDevice.currentApp == Self.mail)
        }
        #expect(App(bundleID: "a.b").accessGroups == ["a.b"], "without the entitlement: the bundle id")
    }

    @Test func twoAppsShareAGroupAndNothingElse() throws {
        let device = try SimulatedDevice()
        device.run(as: Self.mail) {
            #expect(Self.save("own") == errSecSuccess)
            #expect(Self.save("shared", group: "TEAM.com.example.shared") == errSecSuccess)
        }
        device.run(as: Self.widget) {
            #expect(TokenCode.read(account: "TEAM.com.example.shared") == (errSecSuccess, "shared"))
            #expect(TokenCode.read().0 == errSecItemNotFound, "the mail app's own group is not the widget's")
        }
        device.run(as: Self.other) { #expect(TokenCode.count() == 0) }
        device.run { #expect(TokenCode.count() == 0, "the unnamed app (group default) sees none of them") }
    }

    @Test func resetRemovesOneAppsItemsOnly() async throws {
        let device = try SimulatedDevice(passcode: "1234")
        device.run(as: Self.mail) {
            #expect(Self.save("own") == errSecSuccess)
            #expect(Self.save("shared", group: "TEAM.com.example.shared") == errSecSuccess)
        }
        await device.run(as: Self.widget) {
            await Task.yield()
            #expect(Self.save("widget's") == errSecSuccess, "the async run binds the app too")
        }
        device.run(as: Self.other) { #expect(Self.save("other's") == errSecSuccess) }
        device.lock()
        try device.reset(app: Self.mail)
        try device.unlock(passcode: "1234")
        device.run(as: Self.mail) {
            #expect(TokenCode.read().0 == errSecItemNotFound, "its own group is emptied")
            #expect(
                TokenCode.read(account: "TEAM.com.example.shared") == (errSecSuccess, "shared"),
                "the widget still holds the shared group")
        }
        device.run(as: Self.widget) { #expect(TokenCode.read() == (errSecSuccess, "widget's")) }
        device.run(as: Self.other) { #expect(TokenCode.read() == (errSecSuccess, "other's")) }
        try device.reset(app: Self.widget)
        device.run(as: Self.mail) {
            #expect(TokenCode.count() == 1, "the widget's reset leaves the mail app's shared item")
        }
    }
}
