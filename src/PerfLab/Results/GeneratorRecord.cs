namespace PerfLab.Results;

/// <summary>
/// One load generator's own figures in a run whose load several generators sent: the run's figures add their
/// histograms and counts; these say what each sent and whether it was its own limit.
/// </summary>
/// <param name="Host">The generator's host as the hosts file names it ("local": this machine).</param>
/// <param name="Requests">Requests it completed in its measured window, all scenarios.</param>
/// <param name="Rps">Its requests per second, all scenarios.</param>
/// <param name="P50Ms">Its first scenario's median latency.</param>
/// <param name="P99Ms">Its first scenario's 99th percentile.</param>
/// <param name="CpuPercent">Its own CPU over its window: 100 is one core busy.</param>
/// <param name="Cores">The cores it could use.</param>
/// <param name="Saturated">It ran out of CPU: its share of the figures describes it, not the target.</param>
public sealed record GeneratorRecord(string Host, long Requests, double Rps, double P50Ms, double P99Ms, double CpuPercent, int Cores,
    bool Saturated);
