import KeychainFSControlChannel
import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel
import Testing
import KeychainFSTestSupport

/// `keychainfs device prompt auto accept` on a mounted daemon: the engine's prompt queue answers each
/// prompt the way it can be satisfied (the kit's `prompts.automatic = .accept` is the same mode).
@Suite struct PromptAutoAcceptTests {
    @Test func acceptAnswersFacePasscodeAndEitherPrompts() throws {
        let m = try MountedVault()
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("biometry", "enroll"))
        let connection = try KeychainConnection(vault: Vault(directory: m.vault), caller: Caller())
        for (account, bit) in [
            ("face", AccessConstraint.Bit.biometryAny), ("passcode", AccessConstraint.Bit.devicePasscode),
            ("presence", AccessConstraint.Bit.userPresence),
        ] {
            _ = try connection.add([
                "class": "genp", "svce": "s", "acct": .string(account), "v_Data": .data(Data(account.utf8)),
                "accc": .number(bit),
            ])
        }
        try expectSuccess(m.device("prompt", "auto", "match"))
        #expect(FS.read(m.path("genp/s/passcode/value")) == .failure(Errno(EPERM)), "no face answers a passcode prompt")
        try expectSuccess(m.device("prompt", "auto", "accept"))
        for account in ["face", "passcode", "presence"] {
            #expect(FS.read(m.path("genp/s/\(account)/value")) == .success(Data(account.utf8)), "\(account)")
        }
        let refused = m.device("prompt", "auto", "yes")
        #expect(!refused.succeeded && refused.stderr.contains("accept"), "the error names the modes")
    }

    /// `device prompt accept` answers one prompt the way it can be satisfied (`--next`: the next one raised);
    /// the prompt after it gets the automatic answer again.
    @Test func acceptAnswersOnePrompt() throws {
        let m = try MountedVault()
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        let connection = try KeychainConnection(vault: Vault(directory: m.vault), caller: Caller())
        _ = try connection.add([
            "class": "genp", "svce": "s", "acct": "passcode", "v_Data": .data(Data("p".utf8)),
            "accc": .number(AccessConstraint.Bit.devicePasscode),
        ])
        let none = m.device("prompt", "accept")
        #expect(!none.succeeded && none.stderr.contains("no prompt is pending"))
        try expectSuccess(m.device("prompt", "accept", "--next"))
        #expect(FS.read(m.path("genp/s/passcode/value")) == .success(Data("p".utf8)), "the device's passcode")
        #expect(FS.read(m.path("genp/s/passcode/value")) == .failure(Errno(ECANCELED)), "auto cancel again")
    }
}
