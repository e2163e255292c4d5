using System.Diagnostics;
using System.Globalization;
using PerfLab.Common;

namespace PerfLab.Hosts;

/// <summary>What a host is: read over ssh before anything is started there.</summary>
/// <param name="Address">The address ssh connects to (after the ssh config's HostName).</param>
/// <param name="Runtime">The newest Microsoft.NETCore.App version installed there; null when none was found.</param>
/// <param name="Frameworks">Every shared framework installed there, <c>NAME VERSION</c> (Microsoft.AspNetCore.App 10.0.0).</param>
public sealed record HostFacts(string Role, string Destination, string Address, int Cores, long MemoryMb, string Os, string Kernel,
    string? Runtime, IReadOnlyList<string>? Frameworks = null)
{
    /// <summary>Whether ASP.NET Core's shared framework of <see cref="HostProbe.RuntimeMajor"/> is there, for the report.</summary>
    public bool AspNetCore => FrameworkNeed.BuiltInSut.All(n => n.MetBy(Frameworks ?? []));
}

/// <summary>
/// The host's clock minus this machine's, from the exchange with the shortest round trip: the remote time read at the
/// midpoint of the exchange is off by at most half its round trip, which is the uncertainty.
/// </summary>
public sealed record ClockOffset(double OffsetMs, double UncertaintyMs, double RoundTripMs)
{
    /// <summary>A time the host read on its clock (Unix ms), on this machine's.</summary>
    public long Here(long hostUnixMs) => hostUnixMs - (long)Math.Round(OffsetMs);
}

/// <summary>Reads a host's facts and its clock offset, each with one ssh session.</summary>
internal static class HostProbe
{
    /// <summary>The runtime perflab's framework-dependent build needs on a host.</summary>
    public const int RuntimeMajor = 10;

    internal const int ClockExchanges = 24;

    // How far the wall clock may move from the monotonic one over an exchange before it counts as stepped: 1 ms, and
    // 1 ms a second of the exchange beyond it, twice what NTP's slewing may move it (0.5 ms a second); a step of a few
    // ms on a short exchange is far outside.
    private const double StepToleranceMs = 1;
    private const double SlewPerMs = 0.001;

    // POSIX sh: the remote login shell runs it. One key=value per line; dotnet from PATH or the per-user install.
    private const string FactsScript =
        "printf 'cores=%s\\n' \"$(nproc)\"; awk '/^MemTotal:/{print \"mem_kb=\" $2}' /proc/meminfo; " +
        "(. /etc/os-release 2>/dev/null; printf 'os=%s\\n' \"${PRETTY_NAME:-unknown}\"); printf 'kernel=%s\\n' \"$(uname -sr)\"; " +
        "d=$(command -v dotnet || ls \"$HOME/.dotnet/dotnet\" 2>/dev/null); " +
        "[ -n \"$d\" ] && \"$d\" --list-runtimes 2>/dev/null | awk '{print \"framework=\" $1 \" \" $2}'; true";

    // bash's EPOCHREALTIME is read without a fork, so each answer costs the round trip and nothing else.
    internal const string ClockScript = "LC_ALL=C exec bash -c 'while read -r _; do echo $EPOCHREALTIME; done'";

    public static async Task<HostFacts> FactsAsync(SshClient ssh, HostRef host, CancellationToken ct)
    {
        var output = await ssh.RunAsync(host, FactsScript, TimeSpan.FromSeconds(20), ct).ConfigureAwait(false);
        if (output.ExitCode == SshClient.ConnectionFailed || (output.ExitCode != 0 && output.Stdout.Length == 0))
        {
            throw SshClient.Failure(host, output);
        }
        var values = output.Stdout.Split('\n', StringSplitOptions.RemoveEmptyEntries)
            .Select(l => l.Split('=', 2))
            .Where(p => p.Length == 2)
            .GroupBy(p => p[0], StringComparer.Ordinal)
            .ToDictionary(g => g.Key, g => g.Select(p => p[1].Trim()).ToList(), StringComparer.Ordinal);
        string One(string key) => values.TryGetValue(key, out var v) ? v[^1] : "";
        var frameworks = values.GetValueOrDefault("framework") ?? [];
        var runtimes = frameworks.Where(f => f.StartsWith("Microsoft.NETCore.App ", StringComparison.Ordinal)).Select(f => f.Split(' ')[1]);
        var runtime = runtimes.OrderBy(r => Version.TryParse(r.Split('-')[0], out var v) ? v : new Version()).LastOrDefault();
        var (address, _) = await ssh.ResolveAsync(host, ct).ConfigureAwait(false);
        return new HostFacts(
            host.Role,
            host.Destination,
            address,
            int.TryParse(One("cores"), CultureInfo.InvariantCulture, out var cores) ? cores : 0,
            long.TryParse(One("mem_kb"), CultureInfo.InvariantCulture, out var kb) ? kb / 1024 : 0,
            One("os"),
            One("kernel"),
            runtime,
            frameworks);
    }

    /// <summary>Whether a runtime version can run perflab's build: the same major version or newer.</summary>
    public static bool RuntimeFits(string? runtime) =>
        runtime is not null && int.TryParse(runtime.Split('.')[0], CultureInfo.InvariantCulture, out var major) && major >= RuntimeMajor;

    /// <summary>How long the probe waits for each answer after the first.</summary>
    private static readonly TimeSpan AnswerWithin = TimeSpan.FromSeconds(15);

    /// <summary>
    /// How long it waits for the first, which pays for the connection and a cold shell: on CI two probes of namespace
    /// hosts, beside a copy of perflab to three others and a full-speed run, once waited more than 15 s for it together.
    /// </summary>
    private static readonly TimeSpan FirstAnswerWithin = TimeSpan.FromSeconds(30);

    public static Task<ClockOffset> ClockAsync(SshClient ssh, HostRef host, CancellationToken ct) =>
        ClockAsync(host, ssh.StartInfo(host, ClockScript), AnswerWithin, ct, firstAnswerWithin: FirstAnswerWithin);

    /// <summary>The clock probe over <paramref name="start"/> (ssh running <see cref="ClockScript"/>, or a stand-in in tests).</summary>
    /// <param name="wallClock">This machine's wall clock tied to the monotonic one (<see cref="WallClockAnchor.Take()"/>; a
    /// stepped clock in tests).</param>
    /// <param name="firstAnswerWithin">The first answer's wait; <paramref name="answerWithin"/> when not given.</param>
    internal static async Task<ClockOffset> ClockAsync(HostRef host, ProcessStartInfo start, TimeSpan answerWithin, CancellationToken ct,
        Func<WallClockAnchor>? wallClock = null, TimeSpan? firstAnswerWithin = null)
    {
        wallClock ??= WallClockAnchor.Take;
        using var process = Process.Start(start)
            ?? throw new PerfLabException($"{host}: cannot start ssh.", ExitCode.Environment);
        var stderr = process.StandardError.ReadToEndAsync(ct);
        try
        {
            var best = (Rtt: double.MaxValue, Offset: 0.0, UncertaintyMs: 0.0);
            for (var i = 0; i < ClockExchanges; i++)
            {
                var within = i == 0 ? firstAnswerWithin ?? answerWithin : answerWithin;
                var (sent, received, remoteMs) = await ExchangeAsync(host, process, stderr, within, wallClock, ct).ConfigureAwait(false);
                var rtt = Stopwatch.GetElapsedTime(sent.Timestamp, received.Timestamp).TotalMilliseconds;
                var readUncertainty = Math.Max(sent.UncertaintyMs, received.UncertaintyMs);
                if (Math.Abs(received.UnixMs - sent.UnixMs - rtt) > (2 * readUncertainty) + StepToleranceMs + (rtt * SlewPerMs))
                {
                    continue;  // the wall clock stepped between the exchange's two ends
                }
                // The first exchanges pay for connection set-up and a cold shell; the minimum discards them.
                if (rtt < best.Rtt)
                {
                    best = (rtt, remoteMs - ((sent.UnixMs + received.UnixMs) / 2), readUncertainty);
                }
            }
            if (best.Rtt == double.MaxValue)
            {
                throw new PerfLabException($"{host}: this machine's wall clock stepped during every exchange of the clock probe "
                    + "(something is setting the time: NTP stepping, a VM's agent); try again once it has settled.", ExitCode.Environment);
            }
            return new ClockOffset(best.Offset, (best.Rtt / 2) + best.UncertaintyMs, best.Rtt);
        }
        finally
        {
            CloseInput(process);
            if (!process.WaitForExit(5000))
            {
                process.Kill(entireProcessTree: true);
            }
        }
    }

    /// <summary>
    /// One exchange: this machine's wall clock at both ends, the host's time (Unix ms) in between; a failure naming the
    /// host when ssh ended or something other than a time came back.
    /// </summary>
    private static async Task<(WallClockAnchor Sent, WallClockAnchor Received, double RemoteMs)> ExchangeAsync(HostRef host,
        Process process, Task<string> stderr, TimeSpan answerWithin, Func<WallClockAnchor> wallClock, CancellationToken ct)
    {
        // The wall clock is read at both ends of each exchange, tied to the monotonic one there, not once for the
        // probe: a wall clock set during the probe moves the host's clock and this one alike (namespace hosts share
        // one kernel clock), and an anchor taken before it puts every later exchange off by the step (on CI a
        // namespace host read 23 ms off with a 0.16 ms round trip, which no other cause we found explains). An
        // exchange the step fell inside has ends that disagree with the monotonic clock, and is left out.
        var sent = wallClock();
        var line = await SendAsync(process, ct).ConfigureAwait(false)
            ? await AnswerAsync(host, process, answerWithin, ct).ConfigureAwait(false)
            : null;
        var received = wallClock();
        if (line is null)
        {
            // ssh ended: its own exit and message say why (a refused key, a host that is down).
            CloseInput(process);
            // Bounded: an ssh that closed its output and runs on is ended by ClockAsync's finally, its exit taken as 255.
            var exited = process.WaitForExit(5000);
            throw SshClient.Failure(host, new HostOutput(exited ? process.ExitCode : SshClient.ConnectionFailed, "",
                exited ? await stderr.ConfigureAwait(false) : ""));
        }
        if (!double.TryParse(line, NumberStyles.Float, CultureInfo.InvariantCulture, out var remoteSeconds))
        {
            throw new PerfLabException($"{host}: its clock probe (bash's EPOCHREALTIME, bash 5 or newer) answered "
                + $"'{(line.Length > 80 ? line[..80] + "..." : line)}', not a time: is bash 5 there, and does the login "
                + "print nothing?", ExitCode.Environment);
        }
        return (sent, received, remoteSeconds * 1000);
    }

    /// <summary>Asks for the host's time; false when ssh has already ended (writing to it failed: its exit says why).</summary>
    private static async Task<bool> SendAsync(Process process, CancellationToken ct)
    {
        try
        {
            await process.StandardInput.WriteLineAsync("t".AsMemory(), ct).ConfigureAwait(false);
            await process.StandardInput.FlushAsync(ct).ConfigureAwait(false);
            return true;
        }
        catch (IOException)
        {
            return false;
        }
    }

    /// <summary>Closes ssh's input; one that has ended has a broken pipe there, which closing need not report.</summary>
    private static void CloseInput(Process process)
    {
        try
        {
            process.StandardInput.Close();
        }
        catch (IOException)
        {
        }
    }

    /// <summary>The probe's next line; null when ssh's output ended; a failure naming the host when none came in time.</summary>
    private static async Task<string?> AnswerAsync(HostRef host, Process process, TimeSpan within, CancellationToken ct)
    {
        using var cts = CancellationTokenSource.CreateLinkedTokenSource(ct);
        cts.CancelAfter(within);
        try
        {
            return await process.StandardOutput.ReadLineAsync(cts.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (!ct.IsCancellationRequested)
        {
            throw new PerfLabException(string.Create(CultureInfo.InvariantCulture,
                $"{host}: its clock probe had no answer within {within.TotalSeconds:0.#} s: the host, or the link to it, answered "
                + $"too slowly; check that ssh {host.Destination} answers at once."), ExitCode.Unreachable);
        }
    }
}
