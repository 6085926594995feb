import KeychainFSModel
import KeychainFSStore
import Foundation

/// What `keychainfs device biometry status` shows.
public struct BiometryStatus: Sendable, Equatable {
    public var enrolled: Bool
    public var lockedOut: Bool
    public var failures: Int
    public var domainState: Data?
    public var lastBiometricUnlock: Date?

    public init(enrolled: Bool, lockedOut: Bool, failures: Int, domainState: Data?, lastBiometricUnlock: Date?) {
        self.enrolled = enrolled
        self.lockedOut = lockedOut
        self.failures = failures
        self.domainState = domainState
        self.lastBiometricUnlock = lastBiometricUnlock
    }
}

/// LocalAuthentication's policies (Apple's raw values), as the engine evaluates them.
public enum AuthenticationPolicy: Int, Sendable {
    case deviceOwnerAuthenticationWithBiometrics = 1
    case deviceOwnerAuthentication = 2
    case deviceOwnerAuthenticationWithWatch = 3
    case deviceOwnerAuthenticationWithBiometricsOrWatch = 4
    case deviceOwnerAuthenticationWithWristDetection = 5

    /// The constraint that evaluating the policy amounts to.
    var constraint: AccessConstraint {
        let flags: Int64 =
            switch self {
            case .deviceOwnerAuthenticationWithBiometrics: AccessConstraint.Bit.biometryAny
            case .deviceOwnerAuthentication: AccessConstraint.Bit.userPresence
            case .deviceOwnerAuthenticationWithWatch, .deviceOwnerAuthenticationWithWristDetection:
                AccessConstraint.Bit.watch
            case .deviceOwnerAuthenticationWithBiometricsOrWatch:
                AccessConstraint.Bit.biometryAny | AccessConstraint.Bit.watch | AccessConstraint.Bit.or
            }
        return AccessConstraint(flags: flags)!
    }
}

/// The biometry simulator and LAContext's evaluations (docs/spec.md §11).
extension Keychain {
    public func biometryStatus() -> BiometryStatus {
        let b = authenticationSnapshot().biometry
        return BiometryStatus(
            enrolled: b.enrolled, lockedOut: b.lockedOut, failures: b.failures, domainState: b.domainState,
            lastBiometricUnlock: b.lastBiometricUnlock)
    }

    /// Enrols a face (again): the domain state changes, so items bound to `.biometryCurrentSet` made
    /// before now become unusable. Biometry needs a device passcode, as on iOS.
    public func enrollBiometry() throws(KeychainError) {
        guard deviceStatus().passcodeSet else {
            throw KeychainError(SecStatus.param, "set a device passcode before enrolling biometry (as iOS requires)")
        }
        updateBiometry { [now = now()] in $0.enroll(at: now) }
        noteChange(.device)
    }

    /// Removes the enrolment: biometry-only items become unusable until the next enrolment.
    public func unenrollBiometry() {
        updateBiometry { $0.unenroll() }
        noteChange(.device)
    }

    /// `device unlock --biometry` (docs/spec.md §11): the user looks at the device. A match unlocks it if the
    /// passcode unlocked it since the last reboot, enrolment change and biometry lockout, less than 48 h
    /// ago (the class keys are then kept in memory, see ``BiometricEscrow``), and records the time for
    /// touchIDAuthenticationAllowableReuseDuration. A no-match (`match: false`) counts toward the lockout.
    /// Every refusal is errSecAuthFailed with the reason. `at` overrides the keychain's clock (for the 48 h rule).
    public func unlockWithBiometry(match: Bool = true, at date: Date? = nil) throws(KeychainError) {
        let now = date ?? self.now()
        let b = authenticationSnapshot().biometry
        guard b.enrolled else { throw KeychainError(SecStatus.authFailed, "biometry is not enrolled") }
        guard !b.lockedOut else {
            throw KeychainError(SecStatus.authFailed, "biometry is locked out: unlock with the passcode")
        }
        guard match else {
            updateBiometry { $0.failures += 1 }
            let left = BiometryRecord.lockoutFailures - authenticationSnapshot().biometry.failures
            throw KeychainError(
                SecStatus.authFailed,
                left > 0
                    ? "the face does not match (\(left) attempt\(left == 1 ? "" : "s") left before the passcode is required)"
                    : "the face does not match: biometry is locked out until the passcode is entered")
        }
        try protection.withLock { keybag throws(KeychainError) in try keybag.unlockWithBiometry(at: now) }
        updateBiometry {
            $0.lastBiometricUnlock = now; $0.failures = 0
        }
        noteChange(.device)
        scheduleAutoLock()
    }

    /// A correct passcode was entered: failed matches are forgotten and a lockout ends.
    func releaseBiometryLockout() {
        if authenticationSnapshot().biometry.failures > 0 { updateBiometry { $0.failures = 0 } }
    }

    /// `LAContext.canEvaluatePolicy`: nil when it can, else the LAError number and why.
    public func canEvaluate(_ policy: AuthenticationPolicy, interactionNotAllowed: Bool = false)
        -> AuthenticationFailure?
    {
        let device = authenticationSnapshot()
        let plan = AuthenticationRules.plan(
            policy.constraint, created: nil, device: device, options: AuthenticationOptions(), held: [])
        if case .denied(let failure) = plan { return failure }
        return nil
    }

    /// `LAContext.evaluatePolicy`: prompts (unless the context holds it already or a biometric unlock is
    /// recent enough) and completes with a token naming the evaluation, for kSecUseAuthenticationContext.
    @discardableResult
    public func evaluatePolicy(
        _ policy: AuthenticationPolicy, options: AuthenticationOptions, caller: Caller,
        completion: @escaping @Sendable (Result<Data, AuthenticationFailure>) -> Void
    ) -> AuthorizationHandle {
        let handle = AuthorizationHandle(prompts)
        if options.ui == .fail { completion(.failure(.notInteractive)); return handle }
        let device = authenticationSnapshot()
        let held = heldFactors(options, device: device)
        let plan = AuthenticationRules.plan(
            policy.constraint, created: nil, device: device, options: options, held: held)
        let finish: @Sendable (Set<AuthenticationFactor>) -> Void = { [self] factors in
            let now = authenticationSnapshot().biometry.domainState
            let token = options.contextToken.flatMap { evaluations.contains($0) ? $0 : nil }
            if let token { evaluations.invalidate(token) }
            completion(.success(evaluations.record(held.union(factors), domainState: now)))
        }
        switch plan {
        case .granted(let factors): finish(factors)
        case .skipped, .denied:
            if case .denied(let failure) = plan {
                completion(.failure(failure))
            } else {
                completion(.failure(.notInteractive))
            }
        case .prompts(let steps):
            let request = AuthorizationRequest(
                item: [:], itemClass: "LAContext", use: .readSecret, caller: caller, options: options)
            runPrompts(steps[...], request: request, handle: handle) { result in
                switch result {
                case .success(let factors): finish(factors.union(Self.companions(of: factors)))
                case .failure(let failure): completion(.failure(failure))
                }
            }
        }
        return handle
    }

    /// `LAContext.invalidate()`: the evaluation no longer counts.
    public func invalidateEvaluation(_ token: Data) { evaluations.invalidate(token) }

    /// A face satisfies both biometric factors.
    private static func companions(of factors: Set<AuthenticationFactor>) -> Set<AuthenticationFactor> {
        factors.isDisjoint(with: [.biometryAny, .biometryCurrentSet]) ? [] : [.biometryAny, .biometryCurrentSet]
    }
}
