// --callgrind: instruction counts, the stable figure on a shared machine. For each workload and each
// counted contender C, this executable runs three times under `valgrind --tool=callgrind`, one round each
// (after its warm-up round): raw alone (R), C alone (S), raw and C (B). C's instructions are B - R and
// raw's are B - S, so the template, the process's start and whatever both share cancel, while everything
// each contender does in the process (its untimed parts too: the fetch before an update, the release of
// the objects, first-use reflection) counts. The runs alone also give the timed parts' instructions by
// themselves (the part files `timedPartBegins`/`timedPartEnds` dump): the figure the timed medians stand
// for, where the whole-process one also counts what the workload sets up untimed.
import CSQLiteBench
import Foundation

/// Set in a callgrind child (`--counting`): the Strata cases skip the checks that only Strata's runs make
/// outside their timed part (the schema plan before a run, the traced replay of a relationships run, the
/// plan after a first use), which the parent's timed run has already made and which would otherwise count
/// as Strata's instructions. Every result is still verified.
nonisolated(unsafe) var countingInstructions = false

enum Callgrind {
    static func count(_ reports: [WorkloadReport], options: Options, rowsArgument: Int?, departments: Int, models: Int,
                      contenders names: Set<String>) throws -> [WorkloadReport] {
        var extra = ["--departments", String(departments), "--models", String(models)]
        if let rowsArgument { extra += ["--rows", String(rowsArgument)] }
        return try reports.map { report in
            // Child processes are not followed; the raw contender is the reference.
            guard report.workload != "cold-first-use",
                  let rawIndex = report.results.firstIndex(where: { $0.contender == ContenderID.raw.rawValue })
            else { return report }
            var report = report
            var rawAlone: (total: Double, timed: Double)?
            for index in report.results.indices where index != rawIndex {
                guard let contender = ContenderID(rawValue: report.results[index].contender),
                      contender.isSelected(by: names) else { continue }
                if rawAlone == nil { rawAlone = try instructions(report.workload, ["raw"], extra) }
                let alone = try instructions(report.workload, [contender.rawValue], extra)
                let both = try instructions(report.workload, ["raw", contender.rawValue], extra)
                let mine = both.total - rawAlone!.total, raw = both.total - alone.total
                report.results[index].instructions = mine
                report.results[index].instructionsRatio = mine / raw
                report.results[index].timedInstructions = alone.timed
                report.results[index].timedInstructionsRatio = alone.timed / rawAlone!.timed
                if report.results[rawIndex].instructions == nil {
                    report.results[rawIndex].instructions = raw
                    report.results[rawIndex].instructionsRatio = 1
                    report.results[rawIndex].timedInstructions = rawAlone!.timed
                    report.results[rawIndex].timedInstructionsRatio = 1
                }
                log(String(format: "callgrind %@ / %@: %.1fM instructions, raw %.1fM, %.2fx; timed parts %.1fM, raw %.1fM, %.2fx",
                           report.workload, contender.rawValue, mine / 1e6, raw / 1e6, mine / raw,
                           alone.timed / 1e6, rawAlone!.timed / 1e6, alone.timed / rawAlone!.timed))
            }
            return ratiosToRawClasses(report)
        }
    }

    /// Each counted contender's instructions over raw C into classes' (both measured against raw alone).
    private static func ratiosToRawClasses(_ report: WorkloadReport) -> WorkloadReport {
        guard let classes = report.results.first(where: { $0.contender == ContenderID.rawClasses.rawValue }),
              let classesTotal = classes.instructions, let classesTimed = classes.timedInstructions else { return report }
        var report = report
        for index in report.results.indices {
            if let mine = report.results[index].instructions { report.results[index].instructionsRatioToRawClasses = mine / classesTotal }
            if let mine = report.results[index].timedInstructions {
                report.results[index].timedInstructionsRatioToRawClasses = mine / classesTimed
            }
        }
        return report
    }

    /// The instructions of one callgrind run of this executable over `workload` with `contenders`: the whole
    /// process's, and those of its timed parts alone (``timedPartBegins()`` and ``timedPartEnds()`` dump the
    /// counts so far into part files of their own, labelled by what they counted).
    private static func instructions(_ workload: String, _ contenders: [String], _ extra: [String]) throws -> (total: Double, timed: Double) {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-benchmarks-callgrind-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try runProcess(["/usr/bin/env", "valgrind", "--tool=callgrind",
                            "--callgrind-out-file=\(directory.appendingPathComponent("out").path)",
                            executablePath(), "--counting", "--rounds", "1", "--only", workload,
                            "--contenders", contenders.joined(separator: ",")] + extra)
        let parts = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        guard !parts.isEmpty else { throw Verification.failure("callgrind wrote nothing in \(directory.path) (is valgrind installed?)") }
        var total = 0.0, timed = 0.0
        for part in parts {
            let path = directory.appendingPathComponent(part).path
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
            let lines = text.split(separator: "\n")
            // The part's total: a "totals:" line (or "summary:" in older formats), first event = instructions.
            guard let value = ["totals:", "summary:"].lazy.compactMap({ prefix in
                lines.last(where: { $0.hasPrefix(prefix) }).flatMap { Double($0.dropFirst(prefix.count).split(separator: " ").first ?? "") }
            }).first else { throw Verification.failure("no totals in callgrind output \(path)") }
            total += value
            if lines.contains(where: { $0 == "desc: Trigger: Client Request: \(timedLabel)" }) { timed += value }
        }
        return (total, timed)
    }

    private static let timedLabel = "timed"

    /// Before a timed part, in a callgrind child: what ran so far is dumped as untimed.
    @inline(__always)
    static func timedPartBegins() {
        if countingInstructions { strata_bench_callgrind_dump("untimed") }
    }

    /// After a timed part, in a callgrind child: what ran since ``timedPartBegins()`` is dumped as timed.
    @inline(__always)
    static func timedPartEnds() {
        if countingInstructions { strata_bench_callgrind_dump(timedLabel) }
    }
}
