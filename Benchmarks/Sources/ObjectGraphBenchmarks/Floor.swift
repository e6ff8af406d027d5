// `--floor`: what W2's objects cost before any SQL. The floor makes N managed objects (the
// benchmark's Person class, in no context: no registry, no row cache, no change tracking) and a
// five-value row for each, the row a fetch gives every object less its two strings (nil here, so
// no string is made or freed: the floor understates the real cost), reads every row and frees it
// all. It runs beside W2's raw variant in the same process, so that the ratio says how much of
// W2's target the object model alone takes.
import Foundation
import ArgumentParser
import ObjectGraph

enum Floor {
    /// W2's raw variant, the floor with rows, and the floor without rows.
    static func measure(_ harness: Harness) throws -> (raw: Timing, objectsAndRows: Timing, objects: Timing) {
        let raw = try harness.time(Workloads.fetchAll.runner(.raw, harness.scale), writes: false,
                                   in: harness.directory.appendingPathComponent("floor-raw"))
        let withRows = try harness.time(runner(rows: harness.scale.rows, withRows: true), writes: false,
                                        in: harness.directory.appendingPathComponent("floor-rows"))
        let objectsOnly = try harness.time(runner(rows: harness.scale.rows, withRows: false), writes: false,
                                           in: harness.directory.appendingPathComponent("floor-objects"))
        return (raw, withRows, objectsOnly)
    }

    /// N objects (and, `withRows`, a row each), read and freed in the timed body.
    private static func runner(rows n: Int, withRows: Bool) -> Runner {
        Runner(setUp: { _ in }) { _ in
            guard let entity = BenchmarkModel.model.entitiesByName["Person"] else { throw ArgumentParser.ValidationError("no entity Person") }
            return {
                var objects: [Person] = []
                var rows: [[SnapshotValue]] = []
                objects.reserveCapacity(n)
                if withRows { rows.reserveCapacity(n) }
                for i in 0..<n {
                    objects.append(Person(entity: entity, insertInto: nil))
                    // A row of its own, as each fetched object has (the strings left out).
                    if withRows {
                        rows.append([.value(PersonValues.age(i)), .value(Date(timeIntervalSinceReferenceDate: PersonValues.created(i))),
                                     .null, .null, .value(PersonValues.score(i))])
                    }
                }
                var checksum = Checksum()
                for object in objects { checksum.add(object.objectID.isTemporaryID ? 1 : 0) }
                for row in rows { checksum.add(row.count) }
                return checksum.value
            }
        }
    }

    /// The report's lines.
    static func report(_ result: (raw: Timing, objectsAndRows: Timing, objects: Timing), rows: Int) -> String {
        func line(_ label: String, _ timing: Timing) -> String {
            String(format: "%@ %.1f ms [%.1f–%.1f], %.2f × raw", label, timing.median, timing.min, timing.max, timing.median / result.raw.median)
        }
        return """
            W2's floor, N = \(rows):
              raw W2 (the whole fetch)  \(String(format: "%.1f ms [%.1f–%.1f]", result.raw.median, result.raw.min, result.raw.max))
            \(line("  objects and their rows  ", result.objectsAndRows))
            \(line("  objects alone           ", result.objects))
            """
    }
}
