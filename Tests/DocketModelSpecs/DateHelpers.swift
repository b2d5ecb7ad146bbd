import Foundation

// The date helpers seed 000's specs use.
extension Date {
    static var tomorrow: Date { Calendar.current.date(byAdding: .day, value: 1, to: .now)! }
    var noon: Date { Calendar.current.date(bySettingHour: 12, minute: 0, second: 0, of: self)! }
    var dayAfter: Date { Calendar.current.date(byAdding: .day, value: 1, to: self)! }
}
