import KeychainFSControlChannel
import Foundation
import KeychainFSEngine
import KeychainFSModel
import KeychainFSSync
import Testing

/// The typed control calls (docs/architecture.md): every command has one, and what a client sends is what
/// the daemon decodes, field for field; replies come back as they left.
@Suite struct ControlCallCodecTests {
    static let passcode = Data("1234".utf8)

    /// One call of every command, with every field set.
    static let samples: [any ControlCall] = [
        StatusCall(), UnmountCall(), DeviceStatusCall(), DeviceLock(), DeviceReboot(), DeviceUnlock(passcode: passcode),
        PasscodeSet(passcode: passcode), PasscodeChange(old: passcode, new: Data("5678".utf8)),
        PasscodeRemove(passcode: passcode), AutoLockCall(seconds: 300),
        BootUnlockEnable(passcode: passcode, pcrs: [7, 16]), BootUnlockDisable(), DeviceUnlockWithTPM(),
        ItemAdd(query: ["class": "genp", "svce": "s"]), ItemCopyMatching(query: ["class": "genp"]),
        ItemUpdate(query: ["class": "genp"], attributes: ["labl": "l"]), ItemDelete(query: ["class": "genp"]),
        ItemAddIdentity(certificate: ["class": "cert"], key: ["class": "keys"]),
        SecureEnclaveCall(operation: ["op": "sign"]),
        BackupCall(password: passcode), RestoreCall(archive: Data([1, 2, 3]), password: passcode, merge: true),
        BiometryEnroll(), BiometryUnenroll(), BiometryStatusCall(), UnlockWithBiometry(match: false),
        PromptAnswerCall(.passcode(passcode), next: true), PromptAutoCall(.accept), PromptTimeoutCall(seconds: 45),
        PendingPrompts(), CanEvaluatePolicy(.deviceOwnerAuthentication),
        EvaluatePolicy(
            .deviceOwnerAuthenticationWithBiometrics, reason: "why", interactionNotAllowed: true,
            token: Data([9]), reuseDuration: 10),
        InvalidateEvaluation(token: Data([7])),
        SyncNow(), SyncInit(remote: "/r", name: "a"),
        SyncJoin(remote: "/r", code: try! InvitationCode.parse("ABCDE-FGHJK-MNPQR-STVWX-YZ012-34567"), name: "b"),
        SyncInvite(seconds: 60), SyncStatusCall(), SyncMembers(), SyncRemove(member: "b"), SyncRotate(), SyncLeave(),
        SyncMerge(name: "f", ours: Data([1]), theirs: Data([2])),
    ]

    @Test func everyCommandHasItsCall() {
        for command in ControlCommand.allCases {
            #expect(command.callType.command == command, "\(command.rawValue)")
            #expect(Self.samples.contains { type(of: $0).command == command }, "a sample of \(command.rawValue)")
        }
    }

    @Test func whatIsSentIsWhatIsDecoded() throws {
        for call in Self.samples {
            let decoded = try type(of: call).init(CallArguments(call.arguments), attachment: call.attachment)
            #expect(decoded.arguments == call.arguments, "\(type(of: call).command.rawValue)")
            #expect(decoded.attachment == call.attachment)
        }
    }

    @Test func aBadFieldIsErrSecParam() {
        let bad: [(ControlCommand, KeychainDictionary)] = [
            (.promptAnswer, ["answer": "timeout"]), (.promptAnswer, ["answer": "passcode"]),
            (.promptAnswer, ["answer": "match", "next": "yes"]), (.promptAuto, ["mode": "sometimes"]),
            (.laEvaluate, ["policy": .number(99)]), (.unlockBiometry, ["match": .number(1)]),
            (.syncJoin, ["remote": "/r", "code": "not a code", "name": "b"]), (.syncMerge, ["name": "f"]),
            (.laInvalidate, [:]),
        ]
        for (command, arguments) in bad {
            #expect("\(command.rawValue) \(arguments)") {
                _ = try command.callType.init(CallArguments(arguments), attachment: nil)
            } throws: { ($0 as? KeychainError)?.status == SecStatus.param }
        }
    }

    @Test func repliesComeBackAsTheyLeft() throws {
        let prompt = PromptInfo(
            id: 3, kind: .biometryOrPasscode, reason: "r", pid: 42, executable: "/bin/cat", item: "genp s/a",
            raised: Date(timeIntervalSince1970: 1_000_000))
        #expect(try PromptAnswerCall.decode(PromptAnswerCall.encode(prompt)) == prompt)
        #expect(try PendingPrompts.decode(PendingPrompts.encode([prompt, prompt])) == [prompt, prompt])
        var report = SyncReport()
        report.exported = 2
        report.imported = 1
        report.skipped = ["x"]
        report.pushed = true
        report.notes = ["n"]
        #expect(try SyncNow.decode(SyncNow.encode(report)).dictionary == report.dictionary)
        #expect(try SyncInvite.decode(SyncInvite.encode("ABCDE-FGHJK")) == "ABCDE-FGHJK")
    }
}
