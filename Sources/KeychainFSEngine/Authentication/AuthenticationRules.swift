import KeychainFSModel
import KeychainFSStore
import Foundation

/// What the device offers for authentication at one moment.
struct AuthenticationSnapshot: Sendable {
    var passcodeSet: Bool
    var biometry: BiometryRecord
    var now: Date
}

/// One prompt of a plan: what it asks for and which factors its answer can satisfy.
struct PromptStep: Sendable, Equatable {
    var accepts: Set<AuthenticationFactor>

    var kind: PromptKind {
        let biometric = !accepts.isDisjoint(with: [.biometryAny, .biometryCurrentSet])
        return biometric && accepts.contains(.passcode) ? .biometryOrPasscode : biometric ? .biometry : .passcode
    }
}

/// docs/authentication-table.md as code: from a constraint, the device and what the caller already
/// holds, either an outcome without a prompt or the prompts to raise; then what each answer means.
enum AuthenticationRules {
    enum Plan: Equatable {
        case granted(Set<AuthenticationFactor>)
        case skipped
        case denied(AuthenticationFailure)
        case prompts([PromptStep])
    }

    /// Rules 1, 2, 5, 6 and 8 of the table. `created`: the item's creation date (for the current set).
    static func plan(
        _ constraint: AccessConstraint, created: Date?, device: AuthenticationSnapshot,
        options: AuthenticationOptions, held: Set<AuthenticationFactor>
    ) -> Plan {
        // What the caller holds (an evaluated context, an open file's answer) needs no UI at all.
        let heldGroups = constraint.groups.filter { !$0.isDisjoint(with: held) }.count
        if heldGroups == constraint.groups.count
            || constraint.anyGroup && !constraint.passwordRequired && heldGroups > 0
        {
            return .granted(held)
        }
        switch options.ui {
        case .fail: return .denied(.notInteractive)
        case .skip: return .skipped
        case .allow: break
        }
        if !device.passcodeSet, constraint.groups.contains(where: { !$0.isSubset(of: [.applicationPassword]) }) {
            return .denied(
                AuthenticationFailure(SecStatus.authFailed, LAErrorNumber.passcodeNotSet, "no device passcode is set"))
        }
        // Rule 8: the password is needed in addition to whatever the rest asks, and no prompt asks for it.
        if constraint.passwordRequired {
            if let missing = unavailable(.applicationPassword, created: created, device: device, options: options),
                !held.contains(.applicationPassword)
            {
                return .denied(missing)
            }
            let rest = constraint.withoutPassword
            return rest.groups.isEmpty
                ? .granted(held) : plan(rest, created: created, device: device, options: options, held: held)
        }
        var open: [Set<AuthenticationFactor>] = []  // groups still to satisfy, reduced to what is available
        var firstRefusal: AuthenticationFailure?
        for group in constraint.groups where group.isDisjoint(with: held) {
            let available = group.filter { unavailable($0, created: created, device: device, options: options) == nil }
            if available.isEmpty {
                firstRefusal =
                    firstRefusal
                    ?? group.sorted(by: order).compactMap {
                        unavailable($0, created: created, device: device, options: options)
                    }.first
                if !constraint.anyGroup { return .denied(firstRefusal!) }
                continue
            }
            open.append(available)
        }
        let satisfiedSomeGroup = constraint.groups.contains { !$0.isDisjoint(with: held) }
        if constraint.anyGroup {
            if satisfiedSomeGroup { return .granted(held) }
            if open.isEmpty { return .denied(firstRefusal!) }
            return .prompts([PromptStep(accepts: open.reduce(into: []) { $0.formUnion($1) })])
        }
        if open.isEmpty { return .granted(held) }
        // Biometry first, then the passcode (rule 5).
        return .prompts(open.sorted { rank($0) < rank($1) }.map { PromptStep(accepts: $0) })
    }

    /// Why `factor` cannot be used now; nil when it can.
    static func unavailable(
        _ factor: AuthenticationFactor, created: Date?, device: AuthenticationSnapshot,
        options: AuthenticationOptions
    ) -> AuthenticationFailure? {
        let b = device.biometry
        switch factor {
        case .biometryAny, .biometryCurrentSet:
            if !b.enrolled {
                return AuthenticationFailure(
                    SecStatus.authFailed, LAErrorNumber.biometryNotEnrolled, "biometry is not enrolled")
            }
            if factor == .biometryCurrentSet, let created, let enrolledAt = b.enrolledAt, created < enrolledAt {
                return AuthenticationFailure(
                    SecStatus.itemNotFound, nil, "the item was bound to a biometry set that was re-enrolled since")
            }
            if b.lockedOut {
                return AuthenticationFailure(
                    SecStatus.authFailed, LAErrorNumber.biometryLockout, "biometry is locked out: enter the passcode")
            }
            return nil
        case .passcode:
            return device.passcodeSet
                ? nil
                : AuthenticationFailure(SecStatus.authFailed, LAErrorNumber.passcodeNotSet, "no device passcode is set")
        case .watch:
            return AuthenticationFailure(
                SecStatus.authFailed, LAErrorNumber.watchNotAvailable, "no watch is paired (Linux has none)")
        case .applicationPassword:
            // Held when the caller gives one (its box checks it); no prompt can ask for it (rule 8).
            return options.applicationPassword != nil
                ? nil
                : AuthenticationFailure(SecStatus.authFailed, nil, ApplicationPassword.missing.message)
        }
    }

    /// What an answer to `step` means: the factors it satisfied, or the failure (rules 3, 4).
    /// `passcodeCorrect` is asked only when the answer is a passcode the step accepts.
    static func judge(_ answer: PromptAnswer, _ step: PromptStep, passcodeCorrect: (Data) -> Bool) -> Result<
        Set<AuthenticationFactor>, AuthenticationFailure
    > {
        let biometric = step.accepts.intersection([.biometryAny, .biometryCurrentSet])
        switch answer {
        case .cancel, .timeout:
            return .failure(.canceled)
        case .match:
            return biometric.isEmpty
                ? .failure(notRecognized("the prompt asked for the passcode")) : .success(biometric)
        case .noMatch:
            return .failure(notRecognized("the face did not match"))
        case .accept:
            // A plan's steps hold only factors usable now, so one of these is there.
            if !biometric.isEmpty { return .success(biometric) }
            return step.accepts.contains(.passcode) ? .success([.passcode]) : .failure(.canceled)
        case .passcode(let passcode):
            guard step.accepts.contains(.passcode) else {
                return .failure(
                    AuthenticationFailure(
                        SecStatus.authFailed, LAErrorNumber.userFallback,
                        "the item accepts biometry only, not the passcode"))
            }
            return passcodeCorrect(passcode)
                ? .success([.passcode]) : .failure(notRecognized("the passcode is not correct"))
        }
    }

    private static func notRecognized(_ why: String) -> AuthenticationFailure {
        AuthenticationFailure(SecStatus.authFailed, LAErrorNumber.authenticationFailed, why)
    }

    private static func rank(_ group: Set<AuthenticationFactor>) -> Int {
        group.map { AuthenticationFactor.allCases.firstIndex(of: $0)! }.min() ?? 0
    }

    private static func order(_ a: AuthenticationFactor, _ b: AuthenticationFactor) -> Bool {
        AuthenticationFactor.allCases.firstIndex(of: a)! < AuthenticationFactor.allCases.firstIndex(of: b)!
    }
}
