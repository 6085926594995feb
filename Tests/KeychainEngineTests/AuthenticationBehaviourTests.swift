import Foundation
import KeychainFSEngine
import KeychainFSModel
import Testing

/// The rules of docs/authentication-table.md that are not one cell: lockout and its release, UI Fail and
/// Skip, contexts and their reuse, cancelling a prompt, the prompt queue's order (docs/spec.md §11).
@Suite struct AuthenticationBehaviourTests {
    let v: TestVault
    var k: Keychain { v.keychain }
    let passcode = AuthenticationTableTests.passcode

    init() throws {
        v = try TestVault.withFaceID()
        v.keychain.prompts.timeout = 5
        _ = try v.add(genp("svc", "face", ["v_Data": data("token"), "accc": .number(1 << 1)]))
        _ = try v.add(genp("svc", "plain", ["v_Data": data("open")]))
    }

    @Test func defaultAutoAnswerIsCancel() {
        #expect(k.prompts.autoMode == .cancel)
        #expect(v.status { _ = try v.secret("svc", "face").get() } == SecStatus.userCanceled)
    }

    @Test func fiveNoMatchesLockOutUntilThePasscode() throws {
        k.prompts.autoMode = .noMatch
        for _ in 0..<4 { #expect(v.status { _ = try v.secret("svc", "face").get() } == SecStatus.authFailed) }
        #expect(!k.biometryStatus().lockedOut)
        #expect(v.status { _ = try v.secret("svc", "face").get() } == SecStatus.authFailed)
        #expect(k.biometryStatus().lockedOut)
        #expect(k.canEvaluate(.deviceOwnerAuthenticationWithBiometrics)?.laError == LAErrorNumber.biometryLockout)
        #expect(k.canEvaluate(.deviceOwnerAuthentication) == nil, "the passcode still works")
        k.prompts.autoMode = .match
        let raised = k.prompts.raisedCount
        #expect(v.status { _ = try v.secret("svc", "face").get() } == SecStatus.authFailed)
        #expect(k.prompts.raisedCount == raised, "no prompt while locked out")
        // A passcode entered on a userPresence prompt releases it.
        k.prompts.autoMode = .off
        _ = try k.prompts.answer(.passcode(passcode), next: true)
        #expect((try? AuthenticationTableTests.evaluate(k, .deviceOwnerAuthentication).get()) != nil)
        #expect(!k.biometryStatus().lockedOut)
        _ = try k.prompts.answer(.match, next: true)
        #expect(try v.secret("svc", "face").get() == Data("token".utf8))
    }

    @Test func lockoutPersistsWithTheDeviceState() throws {
        k.prompts.autoMode = .noMatch
        for _ in 0..<5 { _ = v.secret("svc", "face") }
        let reopened = try Keychain(vault: k.vault)
        #expect(reopened.biometryStatus().lockedOut)
        #expect(reopened.biometryStatus().domainState == k.biometryStatus().domainState)
        #expect(reopened.prompts.pending.isEmpty)
    }

    @Test func uiFailAndSkipAndAttributes() throws {
        k.prompts.autoMode = .match
        let raised = k.prompts.raisedCount
        #expect(
            v.status { _ = try v.copy(genp("svc", "face", ["r_Data": true, "u_AuthUI": "u_AuthUIF"])) }
                == SecStatus.interactionNotAllowed)
        #expect(
            v.status {
                _ = try v.copy(
                    genp("svc", "face", ["r_Data": true, "u_AuthCtx": .dictionary(["interactionNotAllowed": true])]))
            }
                == SecStatus.interactionNotAllowed)
        #expect(
            v.status { _ = try v.copy(genp("svc", "face", ["r_Data": true, "u_AuthUI": "u_AuthUIS"])) }
                == SecStatus.itemNotFound)
        let all = try v.copy(["class": "genp", "r_Data": true, "m_Limit": "m_LimitAll", "u_AuthUI": "u_AuthUIS"])?
            .arrayValue
        #expect(all == [.data(Data("open".utf8))], "the protected item is skipped, the other returned")
        #expect(k.prompts.raisedCount == raised)
    }

    @Test func anEvaluatedContextIsNotPromptedAgainUntilInvalidated() throws {
        k.prompts.autoMode = .off
        _ = try k.prompts.answer(.match, next: true)
        let token = try AuthenticationTableTests.evaluate(k, .deviceOwnerAuthenticationWithBiometrics).get()
        let raised = k.prompts.raisedCount
        let query = genp("svc", "face", ["r_Data": true, "u_AuthCtx": .dictionary(["token": .data(token)])])
        #expect(try v.copy(query)?.dataValue == Data("token".utf8))
        #expect(try v.copy(query)?.dataValue == Data("token".utf8))
        #expect(k.prompts.raisedCount == raised, "no second prompt")
        k.invalidateEvaluation(token)
        k.prompts.autoMode = .cancel
        #expect(v.status { _ = try v.copy(query) } == SecStatus.userCanceled)
        #expect(k.prompts.raisedCount == raised + 1)
    }

    @Test func reEnrolmentVoidsAContextsBiometry() throws {
        k.prompts.autoMode = .match
        let token = try AuthenticationTableTests.evaluate(k, .deviceOwnerAuthenticationWithBiometrics).get()
        try k.enrollBiometry()
        k.prompts.autoMode = .cancel
        #expect(
            v.status {
                _ = try v.copy(
                    genp("svc", "face", ["r_Data": true, "u_AuthCtx": .dictionary(["token": .data(token)])]))
            } == SecStatus.userCanceled)
    }

    @Test func reuseDurationAfterABiometricUnlock() throws {
        k.prompts.autoMode = .cancel
        let options = AuthenticationOptions(biometricReuse: 60)
        #expect(throws: AuthenticationFailure.self) {
            try AuthenticationTableTests.evaluate(k, .deviceOwnerAuthenticationWithBiometrics, options: options).get()
        }
        try k.unlockWithBiometry()
        let raised = k.prompts.raisedCount
        #expect(throws: Never.self) {
            try AuthenticationTableTests.evaluate(k, .deviceOwnerAuthenticationWithBiometrics, options: options).get()
        }
        #expect(k.prompts.raisedCount == raised)
        #expect(throws: AuthenticationFailure.self, "without a reuse duration it prompts") {
            try AuthenticationTableTests.evaluate(k, .deviceOwnerAuthenticationWithBiometrics).get()
        }
    }

    @Test func cancellingAPendingPromptEndsItAsAUserCancel() throws {
        k.prompts.autoMode = .off
        let attributes = try #require(try v.copy(genp("svc", "face", ["r_Attributes": true]))?.dictionaryValue)
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: AuthorizationOutcome?
        let handle = k.authorize(
            AuthorizationRequest(
                item: attributes, itemClass: "genp", use: .readSecret, caller: Caller(pid: 42, executable: "/bin/cat"))
        ) {
            outcome = $0
            done.signal()
        }
        let pending = k.prompts.pending
        #expect(pending.count == 1 && pending.first?.pid == 42 && pending.first?.kind == .biometry)
        handle.cancel()
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(
            outcome
                == .denied(
                    AuthenticationFailure(
                        SecStatus.userCanceled, LAErrorNumber.userCancel, "the user canceled the authentication")))
        #expect(k.prompts.pending.isEmpty)
    }

    @Test func answersGoToTheOldestPromptAndUnansweredOnesTimeOut() throws {
        k.prompts.autoMode = .off
        k.prompts.timeout = 0.5
        let started = Date()
        #expect(v.status { _ = try v.secret("svc", "face").get() } == SecStatus.userCanceled)
        #expect(Date().timeIntervalSince(started) >= 0.5)
        #expect(throws: KeychainError.self) { _ = try k.prompts.answer(.match, next: false) }
    }

    @Test func enrolmentNeedsAPasscode() throws {
        let bare = try TestVault()
        #expect(bare.status { try bare.keychain.enrollBiometry() } == SecStatus.param)
    }
}

/// Updates of a protected item (docs/authentication-table.md, "Updates").
@Suite struct ProtectedUpdateTests {
    @Test func aNewSecretOrProtectionNeedsTheAnswerAttributesDoNot() throws {
        let v = try TestVault.withFaceID()
        _ = try v.add(genp("svc", "face", ["v_Data": data("token"), "accc": .number(1 << 1)]))
        let raised = v.keychain.prompts.raisedCount
        #expect(v.status { try v.update(genp("svc", "face"), ["labl": "renamed"]) } == 0, "attributes only: no prompt")
        #expect(v.keychain.prompts.raisedCount == raised)
        #expect(
            v.status { try v.update(genp("svc", "face"), ["v_Data": data("stolen")]) } == SecStatus.userCanceled,
            "auto cancel")
        #expect(
            v.status { try v.update(genp("svc", "face"), ["accc": .number(0)]) } == SecStatus.userCanceled,
            "stripping the protection")
        #expect(
            v.status { try v.update(genp("svc", "face", ["u_AuthUI": "u_AuthUIF"]), ["v_Data": data("x")]) }
                == SecStatus.interactionNotAllowed)
        v.keychain.prompts.autoMode = .match
        #expect(v.status { try v.update(genp("svc", "face"), ["v_Data": data("new")]) } == 0)
        #expect(try v.secret("svc", "face").get() == Data("new".utf8))
    }
}
