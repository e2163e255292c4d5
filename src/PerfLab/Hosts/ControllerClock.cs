namespace PerfLab.Hosts;

/// <summary>
/// A generator's run put on the controller's clock: every time it sent (its window's edges, its interval logs, its
/// per-second timeline and ramp steps) minus its host's measured offset, so that several generators' seconds line up
/// with each other and with the app's counters (whose samples the controller shifts by the app host's offset alike).
/// Latencies are never shifted: each was measured on one host's clock. Per-second figures move by whole seconds (the
/// offset rounded), the resolution they have.
/// </summary>
public static class ControllerClock
{
    public static GeneratorRun Align(GeneratorRun run, ClockOffset clock)
    {
        if (clock.OffsetMs == 0)
        {
            return run;
        }
        var by = TimeSpan.FromMilliseconds(-clock.OffsetMs);
        var seconds = (long)Math.Round(by.TotalSeconds, MidpointRounding.AwayFromZero);
        var result = run.Result;
        return run with
        {
            Result = result with
            {
                StartedUtc = result.StartedUtc + by,
                MeasuredFromUtc = result.MeasuredFromUtc + by,
                EndedUtc = result.EndedUtc + by,
                Scenarios =
                [
                    .. result.Scenarios.Select(s => s with
                    {
                        Timeline = [.. s.Timeline.Select(t => t with { UnixSecond = t.UnixSecond + seconds })],
                        Ramp = s.Ramp is null ? null : [.. s.Ramp.Select(r => r with { StartUnixSecond = r.StartUnixSecond + seconds })],
                    }),
                ],
            },
            // The per-second logs move with the timeline they are merged into, second for second.
            Intervals = [.. run.Intervals.Select(i => i with { Start = i.Start.AddSeconds(seconds), End = i.End.AddSeconds(seconds) })],
            Windows = [.. run.Windows.Select(i => i with { Start = i.Start + by, End = i.End + by })],
        };
    }
}
