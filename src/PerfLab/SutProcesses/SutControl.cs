using PerfLab.Common;

namespace PerfLab.SutProcesses;

// What `perflab sut start` was asked for (the connection string comes later, from the database step).
internal sealed record SutStartRequest(
    IReadOnlyDictionary<string, string> Settings,
    IReadOnlyDictionary<string, string> Environment,
    string Framework,
    string Urls,
    bool Detached);

// The database the SUT will use: its connection string and how to describe it.
internal delegate Task<(string ConnectionString, string Description)> PrepareDatabase(CancellationToken ct);

// The work of `perflab sut start | stop | status`: one SUT at a time, recorded in the registry while it runs
// detached, reported on the given writers in the words the commands have always used.
internal sealed class SutControl(SutRegistry registry, TextWriter output, TextWriter errors)
{
    // Starts the SUT on the database prepareDatabase readies; detached, it is recorded and left
    // running; in the foreground, it runs until Ctrl+C or until it exits on its own.
    public async Task<ExitCode> StartAsync(SutStartRequest request, PrepareDatabase prepareDatabase, CancellationToken ct)
    {
        if (registry.Current() is { } running)
        {
            throw new PerfLabException($"a SUT is already running at {running.Url} (pid {running.Pid}); run `perflab sut stop` first.",
                ExitCode.Usage);
        }
        var (connectionString, database) = await prepareDatabase(ct);
        var launch = new SutLaunch(request.Settings, request.Environment, connectionString, request.Framework, request.Urls);
        var sut = await SutProcess.StartAsync(launch, request.Detached, new InlineProgress<string>(output.WriteLine), ct);
        try
        {
            await DescribeAsync(sut, launch, database, ct);
        }
        catch
        {
            await sut.StopAsync();
            await sut.DisposeAsync();
            throw;
        }
        return request.Detached ? await LeaveRunningAsync(sut, launch) : await RunUntilStoppedAsync(sut, ct);
    }

    // Stops the recorded SUT; with none running that is said, and it is no failure.
    public async Task<ExitCode> StopAsync()
    {
        if (registry.Current() is not { } state)
        {
            output.WriteLine("no SUT is running.");
            return ExitCode.Success;
        }
        await SutProcess.StopByPidAsync(state.Pid);
        registry.Remove();
        output.WriteLine($"stopped the SUT at {state.Url} (pid {state.Pid}).");
        return ExitCode.Success;
    }

    // Prints the recorded SUT and its /info: Failed when none runs, Unreachable when /info does not answer.
    public async Task<ExitCode> StatusAsync(CancellationToken ct)
    {
        if (registry.Current() is not { } state)
        {
            output.WriteLine("no SUT is running.");
            return ExitCode.Failed;
        }
        output.WriteLine($"SUT running at {state.Url} (pid {state.Pid}, {state.Framework}), log {state.LogFile}");
        using var client = SutProcess.ClientFor(new Uri(state.Url), SutLaunch.IsHttp2Only(state.Settings), TimeSpan.FromSeconds(5));
        try
        {
            output.WriteLine(await client.GetStringAsync("/info", ct));
        }
        catch (HttpRequestException ex)
        {
            output.WriteLine($"but /info does not answer: {ex.Message}");
            return ExitCode.Unreachable;
        }
        return ExitCode.Success;
    }

    private async Task DescribeAsync(SutProcess sut, SutLaunch launch, string database, CancellationToken ct)
    {
        var info = await sut.GetInfoAsync(ct);
        output.WriteLine($"SUT listening on {sut.BaseAddress} "
            + $"(pid {sut.Pid}, {info.Runtime}, {(info.Gc.IsServerGC ? "server" : "workstation")} GC)");
        output.WriteLine($"    serializer {info.Serializer}, data access {info.DataAccess}, data layer {info.DataLayer}, "
            + $"logging {info.Logging}, thread-pool min {info.ThreadPool.MinWorkerThreads}/{info.ThreadPool.MinCompletionPortThreads}");
        output.WriteLine($"    database: {database}");
        output.WriteLine(sut.Terminal is { } terminal
            ? $"    console: the terminal {terminal.SlavePath}, read by perflab into {sut.LogFile}"
            : $"    log: {sut.LogFile}");
        foreach (var mismatch in VariantCheck.Mismatches(launch, info))
        {
            errors.WriteLine($"warning: {mismatch}");
        }
    }

    private async Task<ExitCode> LeaveRunningAsync(SutProcess sut, SutLaunch launch)
    {
        registry.Record(new RunningSut(sut.Pid, sut.BaseAddress.ToString(), sut.LogFile, launch.Framework,
            new Dictionary<string, string>(launch.Settings)));
        output.WriteLine("    stop it with: perflab sut stop");
        await sut.DisposeAsync();
        return ExitCode.Success;
    }

    private async Task<ExitCode> RunUntilStoppedAsync(SutProcess sut, CancellationToken ct)
    {
        output.WriteLine("    press Ctrl+C to stop it");
        ExitCode result;
        await using (sut)
        {
            try
            {
                await sut.Process.WaitForExitAsync(ct);
                errors.WriteLine($"the SUT exited with code {sut.Process.ExitCode}:{Environment.NewLine}{sut.TailOfLog()}");
                result = ExitCode.Failed;
            }
            catch (OperationCanceledException)
            {
                output.WriteLine("stopping the SUT...");
                result = ExitCode.Success;
            }
        }
        if (sut.Terminal is { } terminal)
        {
            output.WriteLine($"its console: {terminal.LinesRead} lines read from {terminal.SlavePath}, kept in {sut.LogFile}");
        }
        return result;
    }
}
