import Foundation

extension HTTPSettings {
    /// Runs `attempt` until it succeeds, a non-transient error occurs, or attempts run out,
    /// waiting longer each time (`backoff`, doubled, ±25 %). Transient: 423, 429, 500, 502,
    /// 503, 504 (S3's `SlowDown` among them) and dropped or timed-out connections; a server
    /// that never answers or refuses the connection is tried `silentAttempts` times. The
    /// error that ends it names `path` and, after retries, how many tries it took.
    func withRetries<T>(_ path: String, onRetry: ((Int, Double) -> Void)?, _ attempt: (_ retry: Bool) throws -> T) throws -> T {
        var tries = 0
        while true {
            tries += 1
            do {
                return try attempt(tries > 1)
            } catch let error as RemoteError where error.isTransient && tries < attempts(for: error) {
                let delay = backoff * pow(2, Double(tries - 1)) * Double.random(in: 0.75...1.25)
                onRetry?(tries, delay)
                notice?("asking again (try \(tries + 1) of \(attempts(for: error))): " + error.detail)
                Thread.sleep(forTimeInterval: delay)
            } catch var error as RemoteError {
                if error.path == nil { error.path = path }
                if error.isTransient && tries > 1 { error.detail += " (\(tries) tries)" }
                throw error
            }
        }
    }

    private func attempts(for error: RemoteError) -> Int {
        error.kind == .noAnswer || error.kind == .refused ? min(attempts, silentAttempts) : attempts
    }
}
