/// `m:ss` or `h:mm:ss` for a position, a length or a time left, in seconds; any value prints
/// (clamped by `Media.wholeSeconds`), none traps.
package func clockText(_ seconds: Double) -> String {
    let total = Media.wholeSeconds(seconds)
    let h = total / 3600, m = total / 60 % 60, s = total % 60
    let ss = s < 10 ? "0\(s)" : "\(s)"
    if h > 0 { return "\(h):" + (m < 10 ? "0\(m)" : "\(m)") + ":" + ss }
    return "\(m):" + ss
}
