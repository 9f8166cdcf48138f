// --scale: the row-count workloads at 10,000, 100,000 and 1,000,000 rows, each scale a full run of its
// own (warm-up and rounds), then each contender's ratio to raw at every scale and its drift (largest
// ratio over smallest, minus one): a cost that grows faster than the work shows as drift.
import Foundation

enum ScaleRun {
    static let scales = [10_000, 100_000, 1_000_000]

    /// `callgrind`: also each contender's instructions (``Callgrind/count(_:options:rowsArgument:departments:models:contenders:)``)
    /// at the scales up to `callgrindUpTo` rows (a count at 1,000,000 rows takes most of an hour).
    static func run(_ options: Options, callgrind: (contenders: Set<String>, upTo: Int, departments: Int, models: Int)? = nil) throws -> [WorkloadReport] {
        var reports: [WorkloadReport] = []
        for rows in scales {
            var options = options
            options.fetchRows = rows
            options.insertRows = rows
            options.updateRows = rows
            log("scale: \(rows.formatted()) rows")
            let workloads = makeWorkloads(options)
            let runner = try Runner(options: options)
            var scaleReports = makeReports(workloads, try runner.run(workloads))
            if let callgrind, rows <= callgrind.upTo {
                scaleReports = try Callgrind.count(scaleReports, options: options, rowsArgument: rows, departments: callgrind.departments,
                                                   models: callgrind.models, contenders: callgrind.contenders)
            }
            reports += scaleReports
        }
        return addDrift(reports)
    }

    /// Notes under each workload's largest scale: every contender's ratio at each scale, and the drift.
    static func addDrift(_ reports: [WorkloadReport]) -> [WorkloadReport] {
        var reports = reports
        let keys = reports.map(\.workload).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        for key in keys {
            let indices = reports.indices.filter { reports[$0].workload == key }
            guard let last = indices.last, indices.count > 1 else { continue }
            for result in reports[last].results where result.contender != ContenderID.raw.rawValue {
                let ratios = indices.compactMap { i in
                    reports[i].results.first { $0.contender == result.contender }?.medianRatioToRaw
                }
                guard let low = ratios.min(), let high = ratios.max(), low > 0 else { continue }
                let figures = zip(indices, ratios).map { i, ratio in
                    String(format: "%@ rows %.2fx", reports[i].rows.formatted(), ratio)
                }
                reports[last].notes.append(String(format: "%@ drift: %@ -> %.0f%%", result.name,
                                                  figures.joined(separator: ", "), (high / low - 1) * 100))
                // The same in instructions, at the scales counted (--callgrind): the work per row, without the
                // caches' share of the time.
                for (label, ratio) in [("instructions", \Statistics.instructionsRatio), ("timed instructions", \Statistics.timedInstructionsRatio)] {
                    let counted = indices.compactMap { i in
                        reports[i].results.first { $0.contender == result.contender }?[keyPath: ratio].map { (reports[i].rows, $0) }
                    }
                    guard counted.count > 1, let low = counted.map(\.1).min(), let high = counted.map(\.1).max() else { continue }
                    let figures = counted.map { String(format: "%@ rows %.3fx", $0.0.formatted(), $0.1) }
                    reports[last].notes.append(String(format: "%@ %@ drift: %@ -> %.1f%%", result.name, label,
                                                      figures.joined(separator: ", "), (high / low - 1) * 100))
                }
            }
        }
        return reports
    }
}
