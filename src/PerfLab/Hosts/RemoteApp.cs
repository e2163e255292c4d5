using System.Globalization;
using System.Text.Json;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;
using PerfLab.Apps;
using PerfLab.Common;
using PerfLab.Counters;
using PerfLab.SutProcesses;
using PerfLab.Tracing;

namespace PerfLab.Hosts;

/// <summary>
/// An app started on the app's host by its role (<see cref="AppRole"/>), one ssh session per process: the built-in SUT
/// or a user's app, as <paramref name="orderFor"/> says. Its variant is checked by the role on that host as a local
/// run checks it (the built-in SUT's /info, the process's environment and GC mode); its counters, JIT events and traces
/// are read over EventPipe there and streamed back, on this machine's clock.
/// </summary>
/// <param name="orderFor">What to start, for a log file's name (the built-in SUT's launch, or the user's app's build).</param>
/// <param name="needs">The shared frameworks the app (<paramref name="what"/>, in words) needs on the host, checked before
/// anything starts.</param>
internal sealed class RemoteApp(OnHost host, Func<string, AppOrder> orderFor, IProgress<string>? say,
    IReadOnlyList<FrameworkNeed> needs, string what) : IAppUnderTest
{
    private static readonly TimeSpan StartTimeout = TimeSpan.FromSeconds(90);

    // The role reads the process's environment over the diagnostics IPC (10 s at most) and /info (10 s at most).
    private static readonly TimeSpan CheckTimeout = TimeSpan.FromSeconds(30);

    public Task PrepareAsync(IProgress<string>? progress, CancellationToken ct)
    {
        host.Require(needs, what);
        return Task.CompletedTask;
    }

    public async Task<IRunningApp> StartAsync(string logFile, IProgress<string>? progress, CancellationToken ct)
    {
        var order = orderFor(logFile);
        var command = $"{host.Perflab} host app --listen {await OnHost.AddressOfAsync(host, ct)}";
        var session = RoleSession.Start(host.Ssh, host.Host, "the app", command, JsonSerializer.Serialize(order, RoleLines.Json),
            say ?? progress);
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
        return new Running(session, address, parts.Length > 1 ? parts[1] : "", order, host.Offset, say ?? progress);
    }

    /// <param name="clock">The app host's clock minus this machine's: what it sends is put on this machine's clock.</param>
    /// <param name="tell">Where the progress of sending a trace back goes.</param>
    private sealed class Running(RoleSession session, Uri address, string remoteLog, AppOrder order, ClockOffset clock,
        IProgress<string>? tell) : IRunningApp
    {
        public Uri BaseAddress => address;

        public IReadOnlyList<KeyValuePair<string, string>> RequestHeaders => order.RequestHeaders;

        public int Pid => IRunningApp.Elsewhere;

        public bool HasExited => session.HasExited;

        public int ExitCode => session.ExitCode;

        /// <summary>
        /// The tail of the app's log its role sent; first, when the role was lost mid-run, the host and what was lost
        /// there (the app, which its role ends on the controller's silence, as it ends itself).
        /// </summary>
        public string TailOfLog(int lines = 15)
        {
            var tail = session.TailOfLog(lines) is { Length: > 0 } sent
                ? sent
                : $"  | (the app's log is on {session.Host.Destination}: {remoteLog})";
            return session.Lost is { } lost
                ? $"  | {session.Host}: lost mid-run: the app role {lost}; the app there is lost, and its role ends it"
                    + Environment.NewLine + tail
                : tail;
        }

        public HttpClient CreateClient(TimeSpan timeout, Uri? through = null)
        {
            var client = SutProcess.ClientFor(through ?? address, order.Http2Only, timeout);
            foreach (var (name, value) in order.RequestHeaders)
            {
                client.DefaultRequestHeaders.Add(name, value);
            }
            return client;
        }

        /// <summary>Checked by the app role on its host (<c>check</c>), exactly as a local run checks the app.</summary>
        public async Task<VariantEffect> CheckVariantAsync(CancellationToken ct)
        {
            var answer = new TaskCompletionSource<VariantEffect>(TaskCreationOptions.RunContinuationsAsynchronously);
            session.Handle("effect", json => answer.TrySetResult(JsonSerializer.Deserialize<VariantEffect>(json, RoleLines.Json)!));
            session.Handle("effect-failed", message => answer.TrySetException(
                new PerfLabException($"{session.Host}: {message}", Common.ExitCode.Failed)));
            try
            {
                if (!session.Send("check"))
                {
                    throw new PerfLabException($"{session.Host}: the app's session has ended.", Common.ExitCode.Failed);
                }
                var done = await Task.WhenAny(answer.Task, session.Ended, Task.Delay(CheckTimeout, ct));
                ct.ThrowIfCancellationRequested();
                return done == answer.Task
                    ? await answer.Task
                    : throw new PerfLabException(done == session.Ended
                        ? $"{session.Host}: the app's session ended before its variant was checked."
                        : string.Create(System.Globalization.CultureInfo.InvariantCulture,
                            $"{session.Host}: the app role did not answer the variant check within {CheckTimeout.TotalSeconds:0} s."),
                        Common.ExitCode.Failed);
            }
            finally
            {
                session.Handle("effect", null);
                session.Handle("effect-failed", null);
            }
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
        public long? CpuNanoseconds() =>
            long.TryParse(session.Ask(AppCounters.CpuRequest, TimeSpan.FromSeconds(2)), NumberStyles.None, CultureInfo.InvariantCulture,
                out var ns)
                ? ns
                : null;

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
