// --callgrind: instruction counts, the stable figure on a shared machine. For each workload and each
// counted contender C, this executable runs three times under `valgrind --tool=callgrind`, one round each
// (after its warm-up round): raw alone (R), C alone (S), raw and C (B). C's instructions are B - R and
// raw's are B - S, so the template, the process's start and whatever both share cancel, while everything
// each contender does in the process (its untimed parts too: the fetch before an update, the release of
// the objects, first-use reflection) counts.
import Foundation

/// Set in a callgrind child (`--counting`): the Strata cases skip the checks that only Strata's runs make
/// outside their timed part (the schema plan before a run, the traced replay of a relationships run, the
/// plan after a first use), which the parent's timed run has already made and which would otherwise count
/// as Strata's instructions. Every result is still verified.
nonisolated(unsafe) var countingInstructions = false

enum Callgrind {
    static func count(_ reports: [WorkloadReport], options: Options, rowsArgument: Int?, departments: Int,
                      contenders names: Set<String>) throws -> [WorkloadReport] {
        var extra = ["--departments", String(departments)]
        if let rowsArgument { extra += ["--rows", String(rowsArgument)] }
        return try reports.map { report in
            // Child processes are not followed; the raw contender is the reference.
            guard report.workload != "cold-first-use",
                  let rawIndex = report.results.firstIndex(where: { $0.contender == ContenderID.raw.rawValue })
            else { return report }
            var report = report
            var rawAlone: Double?
            for index in report.results.indices where index != rawIndex {
                guard let contender = ContenderID(rawValue: report.results[index].contender),
                      contender.isSelected(by: names) else { continue }
                if rawAlone == nil { rawAlone = try instructions(report.workload, ["raw"], extra) }
                let alone = try instructions(report.workload, [contender.rawValue], extra)
                let both = try instructions(report.workload, ["raw", contender.rawValue], extra)
                let mine = both - rawAlone!, raw = both - alone
                report.results[index].instructions = mine
                report.results[index].instructionsRatio = mine / raw
                if report.results[rawIndex].instructions == nil {
                    report.results[rawIndex].instructions = raw
                    report.results[rawIndex].instructionsRatio = 1
                }
                log(String(format: "callgrind %@ / %@: %.1fM instructions, raw %.1fM, %.2fx",
                           report.workload, contender.rawValue, mine / 1e6, raw / 1e6, mine / raw))
            }
            return report
        }
    }

    /// The instructions of one callgrind run of this executable over `workload` with `contenders`.
    private static func instructions(_ workload: String, _ contenders: [String], _ extra: [String]) throws -> Double {
        let out = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-benchmarks-callgrind-\(UUID().uuidString).out").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        _ = try runProcess(["/usr/bin/env", "valgrind", "--tool=callgrind", "--callgrind-out-file=\(out)",
                            executablePath(), "--counting", "--rounds", "1", "--only", workload,
                            "--contenders", contenders.joined(separator: ",")] + extra)
        guard let text = try? String(contentsOfFile: out, encoding: .utf8) else {
            throw Verification.failure("callgrind wrote no \(out) (is valgrind installed?)")
        }
        // The profile's total: a "totals:" line (or "summary:" in older formats), first event = instructions.
        for prefix in ["totals:", "summary:"] {
            if let line = text.split(separator: "\n").last(where: { $0.hasPrefix(prefix) }),
               let value = line.dropFirst(prefix.count).split(separator: " ").first.flatMap({ Double($0) }) {
                return value
            }
        }
        throw Verification.failure("no totals in callgrind output \(out)")
    }
}
