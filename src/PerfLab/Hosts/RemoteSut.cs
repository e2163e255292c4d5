using System.Net.Http.Json;
using System.Text.Json;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;
using PerfLab.Apps;
using PerfLab.Common;
using PerfLab.Counters;
using PerfLab.Sut;
using PerfLab.Tracing;

namespace PerfLab.Hosts;

/// <summary>
/// The built-in SUT started on the app's host by its role (<see cref="AppRole"/>), one ssh session per process. The
/// variant is checked through /info from here, over the network, as locally; what /info does not speak for (runtime
/// switches read from the process) is unconfirmed, since the process is not on this machine. Its counters, JIT events
/// and traces are read over EventPipe on its host and streamed back, on this machine's clock.
/// </summary>
/// <param name="launchFor">The launch for a log file, as for a local SUT; its CPU set is this machine's and is not sent.</param>
internal sealed class RemoteSut(OnHost host, Func<string, SutLaunch> launchFor, IProgress<string>? say) : IAppUnderTest
{
    private static readonly TimeSpan StartTimeout = TimeSpan.FromSeconds(90);

    public Task PrepareAsync(IProgress<string>? progress, CancellationToken ct) => Task.CompletedTask;

    public async Task<IRunningApp> StartAsync(string logFile, IProgress<string>? progress, CancellationToken ct)
    {
        var launch = launchFor(logFile) with { CpuSet = null };
        var command = $"{host.Perflab} host app --listen {await OnHost.AddressOfAsync(host, ct)}";
        var session = RoleSession.Start(host.Ssh, host.Host, "the app", command, JsonSerializer.Serialize(launch), say ?? progress);
        string ready;
        try
        {
            ready = await session.WaitReadyAsync(StartTimeout, ct);
        }
        catch (OperationCanceledException)
        {
            await session.DisposeAsync();
            throw;
        }
        var parts = ready.Split(' ', 2);
        if (!Uri.TryCreate(parts[0], UriKind.Absolute, out var address))
        {
            await session.DisposeAsync();
            throw new PerfLabException($"{host.Host}: the app role answered '{ready}', not its address.", ExitCode.Failed);
        }
        return new Running(session, address, parts.Length > 1 ? parts[1] : "", launch, host.Offset, say ?? progress);
    }

    /// <param name="clock">The app host's clock minus this machine's: what it sends is put on this machine's clock.</param>
    /// <param name="tell">Where the progress of sending a trace back goes.</param>
    private sealed class Running(RoleSession session, Uri address, string remoteLog, SutLaunch launch, ClockOffset clock,
        IProgress<string>? tell) : IRunningApp
    {
        public Uri BaseAddress => address;

        public int Pid => IRunningApp.Elsewhere;

        public bool HasExited => session.HasExited;

        public int ExitCode => session.ExitCode;

        public string TailOfLog(int lines = 15) =>
            session.TailOfLog(lines) is { Length: > 0 } tail ? tail : $"  | (the app's log is on {session.Host.Destination}: {remoteLog})";

        public HttpClient CreateClient(TimeSpan timeout, Uri? through = null) =>
            SutProcess.ClientFor(through ?? address, SutLaunch.IsHttp2Only(launch.Settings), timeout);

        public async Task<VariantEffect> CheckVariantAsync(CancellationToken ct)
        {
            SutInfo info;
            try
            {
                using var client = CreateClient(TimeSpan.FromSeconds(10));
                info = await client.GetFromJsonAsync("/info", SutInfoJsonContext.Default.SutInfo, ct)
                    ?? throw new PerfLabException("the SUT answered /info with nothing.", Common.ExitCode.Failed);
            }
            catch (Exception ex) when (ex is HttpRequestException or JsonException
                || (ex is TaskCanceledException && !ct.IsCancellationRequested))
            {
                throw new PerfLabException($"the SUT on {session.Host.Destination} did not answer /info: {ex.Message}",
                    Common.ExitCode.Failed, ex);
            }
            var check = VariantCheck.Check(launch, info);
            var unconfirmed = launch.Environment.Keys.Where(k => !check.CoveredEnvironment.Contains(k))
                .Select(k => $"{k} (the process runs on {session.Host.Destination}: not read from here)").ToList();
            return new VariantEffect(check.Confirmed, unconfirmed, check.Mismatches, info.ToMap());
        }

        /// <summary>Read by the app role on its host (<see cref="AppCounters"/>), each sample streamed back as it is read.</summary>
        public async Task<CounterRecording> CollectCountersAsync(CounterOptions options, IProgress<CounterSample>? live,
            CancellationToken ct)
        {
            var recording = new TaskCompletionSource<string>(TaskCreationOptions.RunContinuationsAsynchronously);
            session.Handle("sample", json => live?.Report(Aligned(JsonSerializer.Deserialize<CounterSample>(json, RoleLines.Json)!)));
            session.Handle("recording", json => recording.TrySetResult(json));
            session.Handle("counters-listening", _ => options.Listening?.Invoke());
            session.Handle("counters-failed", message => recording.TrySetException(
                new PerfLabException($"{session.Host}: its counters could not be read: {message}", Common.ExitCode.Unreachable)));
            try
            {
                if (!session.Send("counters " + JsonSerializer.Serialize(options, RoleLines.Json)))
                {
                    throw new PerfLabException($"{session.Host}: the app's session has ended.", Common.ExitCode.Failed);
                }
                await Task.WhenAny(recording.Task, Task.Delay(Timeout.Infinite, ct));
                session.Send("counters-stop");
                var json = await recording.Task.WaitAsync(TimeSpan.FromSeconds(15), CancellationToken.None);
                var read = JsonSerializer.Deserialize<CounterRecording>(json, RoleLines.Json)!;
                return read with
                {
                    StartedUnixMs = Ms(read.StartedUnixMs),
                    EndedUnixMs = Ms(read.EndedUnixMs),
                    MetersTickUnixMs = read.MetersTickUnixMs is { } tick ? Ms(tick) : null,
                    Samples = [.. read.Samples.Select(Aligned)],
                    Adjustments = [.. read.Adjustments.Select(a => a with { UnixMs = Ms(a.UnixMs) })],
                };
            }
            catch (TimeoutException)
            {
                throw new PerfLabException($"{session.Host}: the app role sent no counter recording within 15 s.",
                    Common.ExitCode.Unreachable);
            }
            finally
            {
                session.Handle("sample", null);
                session.Handle("recording", null);
                session.Handle("counters-listening", null);
                session.Handle("counters-failed", null);
            }
        }

        /// <summary>The app's CPU clock, read by its role on its host (one round trip, at most 2 s); null when it did not answer.</summary>
        public long? CpuNanoseconds()
        {
            var answer = new TaskCompletionSource<string>(TaskCreationOptions.RunContinuationsAsynchronously);
            session.Handle("cpu", a => answer.TrySetResult(a));
            try
            {
                return session.Send("cpu") && answer.Task.Wait(TimeSpan.FromSeconds(2))
                    && long.TryParse(answer.Task.Result, System.Globalization.CultureInfo.InvariantCulture, out var ns) ? ns : null;
            }
            finally
            {
                session.Handle("cpu", null);
            }
        }

        /// <summary>Taken by the app role on its host (<see cref="AppTrace"/>), the file sent back to <paramref name="path"/>.</summary>
        public Task<TracedStretch> TraceAsync(TimeSpan length, string path, CancellationToken ct) =>
            RemoteTrace.TraceAsync(session, clock, length, path, tell, ct);

        /// <summary>Read by the app role on its host (<see cref="AppJitWatch"/>), each event streamed back as it is read.</summary>
        public async Task<IAsyncDisposable?> WatchJitAsync(Action<long, OptimizationTier> onCompiled, Action<int> onBackground,
            CancellationToken ct) =>
            await RemoteJitWatch.StartAsync(session, clock, onCompiled, onBackground, ct);

        private long Ms(long remoteUnixMs) => clock.Here(remoteUnixMs);

        // A sample covers a whole second: it moves only by whole seconds of offset (none on clocks kept by NTP).
        private CounterSample Aligned(CounterSample sample) =>
            sample with { UnixSeconds = sample.UnixSeconds - (long)Math.Round(clock.OffsetMs / 1000) };

        public ValueTask DisposeAsync() => session.DisposeAsync();
    }
}
