import KeychainFSItemNaming
import KeychainFSModel
import KeychainFSStore
import Foundation
import Synchronization

/// What is about to happen to an item with access control: the question of the one read-policy
/// entry point, ``Keychain/authorize(_:completion:)``.
public struct AuthorizationRequest: Sendable {
    /// What the caller wants to do with the item.
    public enum Use: Sendable { case readSecret, updateSecret, keyUse }
    /// The item's decrypted attributes (its `accc`, `cdat`, class and names for the prompt).
    public var item: [String: KeychainValue]
    /// The item's class code (`genp`, `keys`, …).
    public var itemClass: String
    public var use: Use
    public var caller: Caller
    public var options: AuthenticationOptions

    public init(
        item: [String: KeychainValue], itemClass: String, use: Use, caller: Caller,
        options: AuthenticationOptions = .init()
    ) {
        self.item = item
        self.itemClass = itemClass
        self.use = use
        self.caller = caller
        self.options = options
    }
}

/// The answer of the read-policy entry point.
public enum AuthorizationOutcome: Sendable, Equatable {
    /// Go ahead (no constraint, or it is satisfied).
    case granted
    /// kSecUseAuthenticationUISkip: leave the item out of the results.
    case skipped
    /// Refused: the status to fail the call with.
    case denied(AuthenticationFailure)
}

/// A running authorization, so its requester can cancel its prompt (FUSE_INTERRUPT).
public final class AuthorizationHandle: Sendable {
    private let state = Mutex<(prompt: UInt64?, canceled: Bool)>((nil, false))
    private let prompts: PromptQueue

    init(_ prompts: PromptQueue) { self.prompts = prompts }

    /// Cancels the pending prompt (or the next one this authorization would raise) as a user cancel.
    public func cancel() {
        let prompt = state.withLock { s -> UInt64? in
            s.canceled = true; return s.prompt
        }
        if let prompt { prompts.cancel(prompt) }
    }

    /// Records the prompt now pending; false if the authorization was canceled already.
    func track(_ prompt: UInt64?) -> Bool {
        state.withLock { s in
            s.prompt = prompt; return !s.canceled
        }
    }
}

/// The one read-policy entry point (docs/spec.md §11): the filesystem, the Security module
/// (through the control socket or in-process) and key use all ask it before a secret of an item with
/// access control is used. It decides from the item's constraint, the device and what the caller holds,
/// raises the prompts the table asks for and waits for them without holding any lock.
extension Keychain {
    /// Whether `attributes` (an item's) ask for user authentication before their secret is used.
    public static func needsAuthorization(_ attributes: [String: KeychainValue]) -> Bool {
        AccessConstraint(attributes: attributes) != nil
    }

    /// Decides `request`, prompting as needed; `completion` runs once, on another thread when a prompt
    /// was raised. The returned handle cancels the prompt (its answer is then a user cancel).
    @discardableResult
    public func authorize(
        _ request: AuthorizationRequest, completion: @escaping @Sendable (AuthorizationOutcome) -> Void
    ) -> AuthorizationHandle {
        let handle = AuthorizationHandle(prompts)
        guard let constraint = AccessConstraint(attributes: request.item) else {
            completion(.granted)
            return handle
        }
        let device = authenticationSnapshot()
        let held = heldFactors(request.options, device: device)
        let plan = AuthenticationRules.plan(
            constraint, created: Self.creationDate(request.item),
            device: device, options: request.options, held: held)
        switch plan {
        case .granted: completion(.granted)
        case .skipped: completion(.skipped)
        case .denied(let failure): completion(.denied(failure))
        case .prompts(let steps):
            runPrompts(steps[...], request: request, handle: handle) { result in
                switch result {
                case .success: completion(.granted)
                case .failure(let failure): completion(.denied(failure))
                }
            }
        }
        return handle
    }

    /// ``authorize(_:completion:)`` for one open file (the filesystem's gatekeeper path, docs/spec.md §4): on success
    /// the answer is kept under a token that covers this item's secret for the caller that passes it
    /// (``AuthenticationOptions/contextToken``) until ``invalidateEvaluation(_:)`` (close) or the device locks.
    @discardableResult
    public func authorizeOpenFile(
        _ request: AuthorizationRequest, completion: @escaping @Sendable (Result<Data, AuthenticationFailure>) -> Void
    ) -> AuthorizationHandle {
        let domainState = authenticationSnapshot().biometry.domainState
        return authorize(request) { [self] outcome in
            switch outcome {
            case .granted:
                // The factors of the constraint, so the token satisfies it without a second prompt.
                let factors =
                    AccessConstraint(attributes: request.item).map {
                        $0.groups.reduce(into: Set()) { $0.formUnion($1) }
                    } ?? []
                completion(.success(evaluations.record(factors, domainState: domainState, untilLock: true)))
            case .skipped: completion(.failure(.notInteractive))
            case .denied(let failure): completion(.failure(failure))
            }
        }
    }

    /// ``authorize(_:completion:)`` for a caller that may wait: blocks until the answer. Every prompt ends
    /// by its timeout at the latest, so the wait is bounded; the deadline here is a second guard.
    public func authorize(_ request: AuthorizationRequest) -> AuthorizationOutcome {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<AuthorizationOutcome?>(nil)
        let handle = authorize(request) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        if done.wait(timeout: .now() + prompts.timeout * 3 + 10) == .timedOut { handle.cancel() }
        return outcome.withLock { $0 } ?? .denied(.canceled)
    }

    /// The check the Secure Enclave key operations call before using a private key made with
    /// `.privateKeyUsage` and a constraint (docs/spec.md §10, §11): throws the table's status, nil when granted.
    /// `attributes` are the key item's; `options` come from the operation's LAContext (or defaults).
    public func authorizeKeyUse(
        _ attributes: [String: KeychainValue], caller: Caller, options: AuthenticationOptions = .init()
    ) throws(KeychainError) {
        let outcome = authorize(
            AuthorizationRequest(
                item: attributes, itemClass: Schema.key.code, use: .keyUse, caller: caller, options: options))
        switch outcome {
        case .granted: return
        case .skipped: throw KeychainError(SecStatus.interactionNotAllowed, "the key needs user authentication")
        case .denied(let failure): throw failure.keychainError
        }
    }

    func authenticationSnapshot() -> AuthenticationSnapshot {
        protection.withLock { kb in
            AuthenticationSnapshot(
                passcodeSet: kb.record.hasPasscode, biometry: kb.record.biometry ?? BiometryRecord(), now: now())
        }
    }

    /// What the caller already holds: an LAContext's evaluation, a recent biometric unlock within its
    /// reuse duration, an application password (checked when the secret is opened with it).
    func heldFactors(_ options: AuthenticationOptions, device: AuthenticationSnapshot) -> Set<AuthenticationFactor> {
        var held =
            options.contextToken.flatMap { evaluations.factors(for: $0, domainState: device.biometry.domainState) }
            ?? []
        // only a password checks a password (the item's box, when its secret is opened)
        held.remove(.applicationPassword)
        if options.applicationPassword != nil { held.insert(.applicationPassword) }
        if options.biometricReuse > 0, device.biometry.enrolled, let last = device.biometry.lastBiometricUnlock,
            device.now.timeIntervalSince(last) <= options.biometricReuse
        {
            held.formUnion([.biometryAny, .biometryCurrentSet])
        }
        return held
    }

    /// Raises each prompt in turn; the first failure ends the run.
    func runPrompts(
        _ steps: ArraySlice<PromptStep>, request: AuthorizationRequest, handle: AuthorizationHandle,
        satisfied: Set<AuthenticationFactor> = [],
        completion: @escaping @Sendable (Result<Set<AuthenticationFactor>, AuthenticationFailure>) -> Void
    ) {
        guard let step = steps.first else { return completion(.success(satisfied)) }
        let item = Self.promptItemName(request)
        report(
            .promptRaised(
                kind: step.kind, reason: request.options.reason, item: item, application: request.caller.application))
        let id = prompts.raise(kind: step.kind, reason: request.options.reason, caller: request.caller, item: item) {
            [self] answer in
            report(.promptAnswered(kind: step.kind, answer: PromptAnswerKind(answer)))
            let result = AuthenticationRules.judge(answer, step) { passcode in
                (try? unlockDevice(passcode: passcode)) != nil
            }
            recordBiometry(answer, step: step, result: result)
            switch result {
            case .failure(let failure): completion(.failure(failure))
            case .success(let factors):
                runPrompts(
                    steps.dropFirst(), request: request, handle: handle, satisfied: satisfied.union(factors),
                    completion: completion)
            }
        }
        if !handle.track(id) { prompts.cancel(id) }
    }

    /// Rule 4: a no-match counts toward the lockout, a match resets it; a correct passcode releases it.
    private func recordBiometry(
        _ answer: PromptAnswer, step: PromptStep, result: Result<Set<AuthenticationFactor>, AuthenticationFailure>
    ) {
        let biometric = !step.accepts.isDisjoint(with: [.biometryAny, .biometryCurrentSet])
        let change: ((inout BiometryRecord) -> Void)? =
            switch (answer, result) {
            case (.noMatch, _) where biometric: { $0.failures += 1 }
            case (.match, .success), (.passcode, .success), (.accept, .success): { $0.failures = 0 }
            default: nil
            }
        guard let change else { return }
        updateBiometry(change)
    }

    /// Changes the persisted biometry record (keybag file) under the keybag's lock.
    func updateBiometry(_ change: (inout BiometryRecord) -> Void) {
        protection.withLock { kb in
            let before = kb.record.biometry ?? BiometryRecord()
            try? kb.updateSettings { record in
                var biometry = record.biometry ?? BiometryRecord()
                change(&biometry)
                record.biometry = biometry
            }
            // A lockout, an unenrolment or a new enrolment asks for the passcode again, as on iOS.
            let after = kb.record.biometry ?? BiometryRecord()
            if after.lockedOut || !after.enrolled || after.domainState != before.domainState {
                kb.dropBiometricEscrow()
            }
        }
    }

    static func creationDate(_ attributes: [String: KeychainValue]) -> Date? {
        if case .date(let date)? = attributes[Attributes.creationDate.code] { date } else { nil }
    }

    /// The item as a prompt names it: its title (``ItemTitle``), never the secret.
    static func promptItemName(_ request: AuthorizationRequest) -> String {
        ItemTitle.of(classCode: request.itemClass, request.item) ?? request.itemClass
    }
}
