// Exchange's recurrence XML (t:Recurrence: a pattern such as t:WeeklyRecurrence and a range such
// as t:NumberedRecurrence) as the RFC 5545 RRULE it stands for, so that a recurring master from
// EWS repeats as it does in Outlook.
import CLibXML2
import Foundation

enum ExchangeRecurrence {
    private static let weekdays = ["Sunday": "SU", "Monday": "MO", "Tuesday": "TU", "Wednesday": "WE", "Thursday": "TH",
                                   "Friday": "FR", "Saturday": "SA"]
    private static let dayGroups = ["Day": ["MO", "TU", "WE", "TH", "FR", "SA", "SU"], "Weekday": ["MO", "TU", "WE", "TH", "FR"],
                                    "WeekendDay": ["SA", "SU"]]
    private static let indexes = ["First": 1, "Second": 2, "Third": 3, "Fourth": 4, "Last": -1]
    private static let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                                 "October", "November", "December"]

    /// The RRULE of a `t:Recurrence` element; nil when it holds no pattern this knows.
    static func rule(from recurrence: xmlNodePtr) -> String? {
        var parts: [String] = []
        var range: [String] = []
        for element in children(of: recurrence) {
            let fields = Dictionary(children(of: element).map { (name(of: $0), RecordXPath.string(of: $0).trimmedBlanks) },
                                    uniquingKeysWith: { first, _ in first })
            switch name(of: element) {
            case "DailyRecurrence": parts = ["FREQ=DAILY"] + interval(fields)
            case "WeeklyRecurrence":
                parts = ["FREQ=WEEKLY"] + interval(fields) + days(fields["DaysOfWeek"], index: nil)
                if let first = fields["FirstDayOfWeek"].flatMap({ weekdays[$0] }), first != "MO" { parts.append("WKST=\(first)") }
            case "AbsoluteMonthlyRecurrence":
                parts = ["FREQ=MONTHLY"] + interval(fields) + (fields["DayOfMonth"].map { ["BYMONTHDAY=\($0)"] } ?? [])
            case "RelativeMonthlyRecurrence":
                parts = ["FREQ=MONTHLY"] + interval(fields) + days(fields["DaysOfWeek"], index: fields["DayOfWeekIndex"])
            case "AbsoluteYearlyRecurrence":
                parts = ["FREQ=YEARLY"] + month(fields) + (fields["DayOfMonth"].map { ["BYMONTHDAY=\($0)"] } ?? [])
            case "RelativeYearlyRecurrence":
                parts = ["FREQ=YEARLY"] + month(fields) + days(fields["DaysOfWeek"], index: fields["DayOfWeekIndex"])
            case "NumberedRecurrence": range = fields["NumberOfOccurrences"].map { ["COUNT=\($0)"] } ?? []
            case "EndDateRecurrence":
                // An xs:date, with or without an offset: the last day occurrences may start on.
                range = fields["EndDate"].map { ["UNTIL=\($0.prefix(10).filter { $0 != "-" })"] } ?? []
            default: continue
            }
        }
        guard !parts.isEmpty else { return nil }
        return (parts + range).joined(separator: ";")
    }

    private static func interval(_ fields: [String: String]) -> [String] {
        guard let value = fields["Interval"], value != "1", !value.isEmpty else { return [] }
        return ["INTERVAL=\(value)"]
    }

    private static func month(_ fields: [String: String]) -> [String] {
        guard let name = fields["Month"], let number = months.firstIndex(of: name) else { return [] }
        return ["BYMONTH=\(number + 1)"]
    }

    /// BYDAY for a list of EWS day names; an index (`Second`) goes before a single day
    /// (`BYDAY=2TU`), or becomes BYSETPOS for a group (`Weekday` → `BYDAY=MO,...,FR;BYSETPOS=2`).
    private static func days(_ list: String?, index: String?) -> [String] {
        guard let list else { return [] }
        let names = list.split(separator: " ").map(String.init)
        let position = index.flatMap { indexes[$0] }
        if names.count == 1, let group = dayGroups[names[0]] {
            return ["BYDAY=\(group.joined(separator: ","))"] + (position.map { ["BYSETPOS=\($0)"] } ?? [])
        }
        let codes = names.compactMap { weekdays[$0] }
        guard !codes.isEmpty else { return [] }
        if let position, codes.count == 1 { return ["BYDAY=\(position)\(codes[0])"] }
        return ["BYDAY=\(codes.joined(separator: ","))"] + (position.map { ["BYSETPOS=\($0)"] } ?? [])
    }

    private static func children(of node: xmlNodePtr) -> [xmlNodePtr] {
        var found: [xmlNodePtr] = []
        var child = node.pointee.children
        while let current = child {
            if current.pointee.type == XML_ELEMENT_NODE { found.append(current) }
            child = current.pointee.next
        }
        return found
    }

    private static func name(of node: xmlNodePtr) -> String {
        node.pointee.name.map { String(cString: $0) } ?? ""
    }
}
