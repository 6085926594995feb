import Foundation
import KeychainFSModel
@_spi(FixedExpiryValidationTime) import X509

/// What an evaluation found: the chain it built, leaf first, and why it failed, in Apple's terms.
struct TrustOutcome: Sendable {
    var chain: [Certificate]
    var failure: TrustFailure?
}

/// Apple's OSStatus for a failed evaluation and the certificate it names.
struct TrustFailure: Sendable, Error {
    var status: OSStatus
    var message: String
}

/// One evaluation with swift-certificates' verifier, and its failures told as Apple's trustd tells them:
/// the codes of its SecPolicyChecks.list (TemporalValidity: errSecCertificateExpired, also for a
/// certificate not yet valid; SSLHostname: errSecHostNameMismatch; AnchorTrusted: errSecNotTrusted;
/// MissingIntermediate: errSecCreateChainFailed), the most serious one first as SecTrust.c ranks them
/// (trust, then name, then expiry), and its wording ("“%@” certificate is expired").
struct TrustEvaluation: Sendable {
    var leaf: Certificate
    var intermediates: [Certificate]
    var roots: [Certificate]
    /// nil: now.
    var verifyDate: Date?
    var serverHostnames: [String]

    func run() async -> TrustOutcome {
        let basic = verifyDate.map { RFC5280Policy(fixedExpiryValidationTime: $0) } ?? RFC5280Policy()
        var policy = AnyPolicy(basic)
        for hostname in serverHostnames {
            let previous = policy
            let identity = Self.identityPolicy(hostname)
            policy = AnyPolicy {
                previous
                identity
            }
        }
        let combined = policy
        var verifier = Verifier(rootCertificates: CertificateStore(roots)) { combined }
        switch await verifier.validate(leaf: leaf, intermediates: CertificateStore(intermediates)) {
        case .validCertificate(let chain):
            return TrustOutcome(chain: Array(chain), failure: nil)
        case .couldNotValidate(let failures):
            // A chain to a root that fails a policy; or none reached a root.
            if let failure = failures.first {
                return TrustOutcome(chain: Array(failure.chain), failure: anchoredFailure(failure))
            }
            let chain = partialChain()
            return TrustOutcome(chain: chain, failure: unanchoredFailure(chain))
        }
    }

    /// The name check for `hostname`: an IP address is matched against the leaf's IP addresses.
    static func identityPolicy(_ hostname: String) -> ServerIdentityPolicy {
        var v4 = in_addr(), v6 = in6_addr()
        let isAddress = inet_pton(AF_INET, hostname, &v4) == 1 || inet_pton(AF_INET6, hostname, &v6) == 1
        return isAddress
            ? ServerIdentityPolicy(serverHostname: nil, serverIP: hostname)
            : ServerIdentityPolicy(serverHostname: hostname, serverIP: nil)
    }

    /// Why a chain that reached a root failed: the hostname, then a certificate out of its validity, then
    /// whatever else swift-certificates refused (basic or name constraints), which trustd would report
    /// with codes of their own.
    func anchoredFailure(_ failure: CertificateValidationResult.PolicyFailure) -> TrustFailure {
        for hostname in serverHostnames {
            var identity = Self.identityPolicy(hostname)
            if case .failsToMeetPolicy = identity.chainMeetsPolicyRequirements(chain: failure.chain) {
                return TrustFailure(
                    status: SecStatus.hostNameMismatch,
                    message: "“\(Self.summary(failure.chain.leaf))” certificate name does not match input")
            }
        }
        let date = verifyDate ?? Date()
        if let expired = failure.chain.first(where: { date < $0.notValidBefore || date > $0.notValidAfter }) {
            return TrustFailure(
                status: SecStatus.certificateExpired, message: "“\(Self.summary(expired))” certificate is expired")
        }
        return TrustFailure(
            status: SecStatus.notTrusted,
            message: "“\(Self.summary(failure.chain.leaf))” certificate is not trusted (\(failure.policyFailureReason))"
        )
    }

    /// No chain reached a root: trustd's AnchorTrusted when the chain ends at a self-signed certificate,
    /// its MissingIntermediate when it ends at one whose issuer is not there.
    func unanchoredFailure(_ chain: [Certificate]) -> TrustFailure {
        let last = chain.last ?? leaf
        let message = "“\(Self.summary(last))” certificate is not trusted"
        return TrustFailure(
            status: Self.isSelfSigned(last) ? SecStatus.notTrusted : SecStatus.createChainFailed, message: message)
    }

    /// The leaf and the given certificates that issued it, one after another, as far as they go.
    func partialChain() -> [Certificate] {
        var chain = [leaf]
        while let tip = chain.last, !Self.isSelfSigned(tip),
            let issuer = intermediates.first(where: { candidate in
                candidate.subject == tip.issuer && !chain.contains(candidate)
                    && candidate.publicKey.isValidSignature(tip.signature, for: tip)
            })
        {
            chain.append(issuer)
        }
        return chain
    }

    static func isSelfSigned(_ certificate: Certificate) -> Bool {
        certificate.issuer == certificate.subject
            && certificate.publicKey.isValidSignature(certificate.signature, for: certificate)
    }

    /// The subject's common name, as SecCertificateCopySubjectSummary gives it, else the whole subject.
    static func summary(_ certificate: Certificate) -> String {
        let names = certificate.subject.flatMap { $0 }.filter { $0.type == .RDNAttributeType.commonName }
        return names.last.flatMap { String($0.value) } ?? String(describing: certificate.subject)
    }
}
