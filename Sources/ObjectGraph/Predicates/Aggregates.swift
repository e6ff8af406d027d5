// The aggregate computations shared by the collection operators (`@sum`, `@avg`, `@min`,
// `@max`) and the functions (`sum:`, `average:`, `median:`, `mode:`, `stddev:`...).
import Foundation

/// Aggregates over evaluated values (nil and null objects already removed).
enum Aggregates {
    /// The sum: an integer while every value is one and nothing overflows, else a double (or a
    /// decimal when a decimal is present). Non-numbers count as zero, as NSNumber's KVC does.
    static func sum(_ values: [Any]) -> Any {
        var integer: Int64 = 0
        var double = 0.0
        var decimal = Decimal(0)
        var kind = 0  // 0 integer, 1 double, 2 decimal
        for value in values {
            guard let n = Number(value) else { continue }
            switch n {
            case .integer(let v) where kind == 0:
                let (result, overflow) = integer.addingReportingOverflow(v)
                if overflow {
                    kind = 1
                    double = Double(integer) + Double(v)
                } else {
                    integer = result
                }
            case .decimal:
                if kind == 0 { decimal = Decimal(integer) } else if kind == 1 { decimal = Decimal(double) }
                kind = 2
                decimal += n.decimalValue
            default:
                if kind == 0 {
                    kind = 1
                    double = Double(integer)
                }
                if kind == 2 { decimal += n.decimalValue } else { double += n.doubleValue }
            }
        }
        switch kind {
        case 0: return Int(integer)
        case 1: return double
        default: return decimal
        }
    }

    /// The numbers among `values`; throws when a value is not a number.
    static func checkedNumbers(_ values: [Any], _ function: String) throws -> [Number] {
        try values.map { value in
            guard let n = Number(value) else {
                throw PredicateError(.evaluation, "\(function) needs numbers, got \(ValueComparison.describe(value))")
            }
            return n
        }
    }

    /// The sum, throwing when a value is not a number.
    static func checkedSum(_ values: [Any], _ function: String) throws -> Any {
        _ = try checkedNumbers(values, function)
        return sum(values)
    }

    /// The arithmetic mean as a double.
    static func average(_ values: [Any]) -> Any {
        let numbers = values.compactMap { Number($0) }
        guard !numbers.isEmpty else { return 0.0 }
        if numbers.contains(where: { if case .decimal = $0 { return true } else { return false } }) {
            return numbers.reduce(Decimal(0)) { $0 + $1.decimalValue } / Decimal(numbers.count)
        }
        return numbers.reduce(0.0) { $0 + $1.doubleValue } / Double(numbers.count)
    }

    /// The smallest or largest value (numbers, strings or dates); nil when empty or mixed.
    static func extreme(_ values: [Any], wantMax: Bool) -> Any? {
        var best: Any?
        for value in values {
            guard let current = best else { best = value; continue }
            guard let order = try? ValueComparison.order(value, current) else { continue }
            if wantMax ? order == .orderedDescending : order == .orderedAscending { best = value }
        }
        return best
    }

    /// The median: the middle value, or the mean of the two middle values.
    static func median(_ numbers: [Number]) -> Any? {
        guard !numbers.isEmpty else { return nil }
        let sorted = numbers.sorted { $0.compare($1) == .orderedAscending }
        if sorted.count % 2 == 1 { return sorted[sorted.count / 2].anyValue }
        return (sorted[sorted.count / 2 - 1].doubleValue + sorted[sorted.count / 2].doubleValue) / 2
    }

    /// The most frequent values, as an array (several when tied), in first-seen order.
    static func mode(_ values: [Any]) -> [Any] {
        var distinct: [Any] = []
        var counts: [Int] = []
        for value in values {
            if let i = distinct.firstIndex(where: { ValueComparison.equal($0, value) }) {
                counts[i] += 1
            } else {
                distinct.append(value)
                counts.append(1)
            }
        }
        guard let top = counts.max() else { return [] }
        return zip(distinct, counts).filter { $0.1 == top }.map(\.0)
    }

    /// The population standard deviation.
    static func standardDeviation(_ numbers: [Number]) -> Any? {
        guard !numbers.isEmpty else { return nil }
        let doubles = numbers.map(\.doubleValue)
        let mean = doubles.reduce(0, +) / Double(doubles.count)
        let variance = doubles.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(doubles.count)
        return variance.squareRoot()
    }
}
