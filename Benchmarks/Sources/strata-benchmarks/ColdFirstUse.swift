// Workload cold-first-use: the first-use workload, each run in a new process, so nothing is warm (type
// metadata, conformance caches, Strata's reflection of the models, SQLite's first open). The child is this
// executable with `--cold-child CONTENDER --cold-path PATH`: it runs the contender's first-use case once
// (which times only its own part and verifies afterwards) and prints the milliseconds.
import Foundation

enum ColdFirstUse {
    /// The parent's side: a run of `contender` in a child process.
    static func run(_ contender: ContenderID) -> (Job) throws -> Duration {
        { job in
            let output = try runProcess([executablePath(), "--cold-child", contender.rawValue, "--cold-path", job.path])
            guard let line = output.split(separator: "\n").last, let milliseconds = Double(line) else {
                throw Verification.failure("cold-first-use child printed \(output.debugDescription), expected milliseconds")
            }
            return .nanoseconds(Int64(milliseconds * 1e6))
        }
    }

    /// The child's side: one first use, its time on standard output.
    static func child(_ contender: ContenderID, path: String) throws {
        let job = Job(path: path, rows: SchemaTables.count)
        let duration: Duration
        switch contender {
        case .raw:
            duration = try RawContender.schemaInSync(job)
        #if STRATA_MODELS
        case .strata:
            duration = try StrataContender.schemaInSync(job)
        #endif
        default:
            throw Verification.failure("cold-first-use has no \(contender.rawValue) contender")
        }
        print(String(format: "%.6f", duration.milliseconds))
    }

    /// Adds, under cold-first-use, each contender's cold median as a multiple of its warm median in
    /// first-use (issue 14's target for Strata: at most 2x).
    static func annotate(_ reports: [WorkloadReport]) -> [WorkloadReport] {
        guard let warm = reports.first(where: { $0.workload == "first-use" }) else { return reports }
        return reports.map { report in
            guard report.workload == "cold-first-use" else { return report }
            var report = report
            for result in report.results {
                guard let warmResult = warm.results.first(where: { $0.contender == result.contender }) else { continue }
                report.notes.append(String(format: "%@: cold %.2f ms = %.2fx warm (first-use median %.2f ms)",
                                           result.name, result.medianMs, result.medianMs / warmResult.medianMs,
                                           warmResult.medianMs))
            }
            return report
        }
    }
}
