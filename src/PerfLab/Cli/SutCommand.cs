using System.CommandLine;
using System.Text.Json;
using PerfLab.Common;
using PerfLab.Database;
using PerfLab.Sut;

namespace PerfLab.Cli;

/// <summary>`perflab sut start | stop | status`: the system under test on perflab's (or a given) database.</summary>
public static class SutCommand
{
    public static Command Create()
    {
        var command = new Command("sut", "Start, stop or inspect the system under test (the AdventureWorks API).");
        command.Subcommands.Add(Start());
        command.Subcommands.Add(Stop());
        command.Subcommands.Add(Status());
        return command;
    }

    private static string StateFile => Path.Combine(PerfLabPaths.CacheRoot, "sut", "running.json");

    private sealed record RunningSut(int Pid, string Url, string LogFile, string Framework, Dictionary<string, string> Settings);

    private static Command Start()
    {
        var settings = new Option<string[]>("--set")
        {
            Description = "A SUT setting Key=Value, repeatable: DataAccess=sync|async|sync-over-async, Serializer=newtonsoft|system-text-json|system-text-json-sourcegen, Logging=default|locked-console|source-generated, ThreadPool:MinWorkerThreads=70, ThreadPool:MinCompletionPortThreads=70.",
            AllowMultipleArgumentsPerToken = false,
        };
        var env = new Option<string[]>("--env")
        {
            Description = "An environment variable Key=Value for the runtime, repeatable, e.g. DOTNET_gcServer=1, DOTNET_GCDynamicAdaptationMode=0.",
        };
        var framework = new Option<string>("--framework", "-f")
        {
            Description = "Target framework to run: net8.0, net9.0 (published self-contained on first use) or net10.0.",
            DefaultValueFactory = _ => SutLaunch.DefaultFramework,
        };
        framework.AcceptOnlyFromAmong([.. SutLaunch.KnownFrameworks]);
        var urls = new Option<string>("--urls")
        {
            Description = "Address to listen on (loopback); port 0 picks a free one.",
            DefaultValueFactory = _ => "http://127.0.0.1:5000",
        };
        var foreground = new Option<bool>("--foreground") { Description = "Stay attached and stop the SUT on Ctrl+C, instead of leaving it running." };
        var connection = DbOptions.ConnectionString();
        var dataDir = DbOptions.DataDir();

        var command = new Command("start", "Start the SUT on the seeded database (starting and seeding perflab's PostgreSQL if needed) and print its address.");
        foreach (var option in new Option[] { settings, env, framework, urls, foreground, connection, dataDir })
        {
            command.Options.Add(option);
        }
        command.SetAction(async (parse, ct) =>
        {
            var launchSettings = ParsePairs(parse.GetValue(settings) ?? [], "--set");
            var launchEnv = ParsePairs(parse.GetValue(env) ?? [], "--env");
            var listen = parse.GetValue(urls)!;
            if (!Uri.TryCreate(listen, UriKind.Absolute, out var listenUri) || listenUri.Scheme != "http"
                || !(listenUri.IsLoopback || listenUri.Host == "127.0.0.1"))
            {
                throw new PerfLabException($"--urls '{listen}' must be an http:// address on loopback, e.g. http://127.0.0.1:5000.", ExitCode.Usage);
            }
            if (RunningSutOrNull() is { } running)
            {
                throw new PerfLabException($"a SUT is already running at {running.Url} (pid {running.Pid}); run `perflab sut stop` first.", ExitCode.Usage);
            }

            var (connectionString, database) = await DatabasePreparation.EnsureReadyAsync(parse.GetValue(connection), parse.GetValue(dataDir), Console.Out, ct);
            var detached = !parse.GetValue(foreground);
            var launch = new SutLaunch(launchSettings, launchEnv, connectionString, parse.GetValue(framework)!, listen);
            var sut = await SutProcess.StartAsync(launch, detached, new InlineProgress<string>(Console.WriteLine), ct);
            var info = await sut.GetInfoAsync(ct);
            var mismatches = VariantCheck.Mismatches(launch, info);
            Console.WriteLine($"SUT listening on {sut.BaseAddress} (pid {sut.Pid}, {info.Runtime}, {(info.Gc.IsServerGC ? "server" : "workstation")} GC)");
            Console.WriteLine($"    serializer {info.Serializer}, data access {info.DataAccess}, logging {info.Logging}, thread-pool min {info.ThreadPool.MinWorkerThreads}/{info.ThreadPool.MinCompletionPortThreads}");
            Console.WriteLine($"    database: {database}");
            Console.WriteLine($"    log: {sut.LogFile}");
            foreach (var mismatch in mismatches)
            {
                Console.Error.WriteLine($"warning: {mismatch}");
            }
            if (detached)
            {
                WriteState(new RunningSut(sut.Pid, sut.BaseAddress.ToString(), sut.LogFile, launch.Framework, new Dictionary<string, string>(launchSettings)));
                Console.WriteLine("    stop it with: perflab sut stop");
                await sut.DisposeAsync();
                return (int)ExitCode.Success;
            }
            Console.WriteLine("    press Ctrl+C to stop it");
            await using (sut)
            {
                try
                {
                    await sut.Process.WaitForExitAsync(ct);
                    Console.Error.WriteLine($"the SUT exited with code {sut.Process.ExitCode}:{Environment.NewLine}{sut.TailOfLog()}");
                    return (int)ExitCode.Failed;
                }
                catch (OperationCanceledException)
                {
                    Console.WriteLine("stopping the SUT...");
                    return (int)ExitCode.Success;
                }
            }
        });
        return command;
    }

    private static Command Stop()
    {
        var command = new Command("stop", "Stop the SUT that `perflab sut start` left running.");
        command.SetAction(async (_, _) =>
        {
            if (RunningSutOrNull() is not { } state)
            {
                Console.WriteLine("no SUT is running.");
                return (int)ExitCode.Success;
            }
            await SutProcess.StopByPidAsync(state.Pid);
            DeleteState();
            Console.WriteLine($"stopped the SUT at {state.Url} (pid {state.Pid}).");
            return (int)ExitCode.Success;
        });
        return command;
    }

    private static Command Status()
    {
        var command = new Command("status", "Say whether a SUT started by `perflab sut start` is running, and what /info reports.");
        command.SetAction(async (_, ct) =>
        {
            if (RunningSutOrNull() is not { } state)
            {
                Console.WriteLine("no SUT is running.");
                return (int)ExitCode.Failed;
            }
            Console.WriteLine($"SUT running at {state.Url} (pid {state.Pid}, {state.Framework}), log {state.LogFile}");
            using var client = SutProcess.ClientFor(new Uri(state.Url), SutLaunch.IsHttp2Only(state.Settings), TimeSpan.FromSeconds(5));
            try
            {
                Console.WriteLine(await client.GetStringAsync("/info", ct));
            }
            catch (HttpRequestException ex)
            {
                Console.WriteLine($"but /info does not answer: {ex.Message}");
                return (int)ExitCode.Unreachable;
            }
            return (int)ExitCode.Success;
        });
        return command;
    }

    private static Dictionary<string, string> ParsePairs(string[] values, string option)
    {
        var pairs = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (var value in values)
        {
            var eq = value.IndexOf('=');
            if (eq <= 0)
            {
                throw new PerfLabException($"{option} '{value}' is not Key=Value, e.g. {option} {(option == "--set" ? "DataAccess=sync" : "DOTNET_gcServer=1")}.", ExitCode.Usage);
            }
            pairs[value[..eq].Trim()] = value[(eq + 1)..].Trim();
        }
        return pairs;
    }

    /// <summary>
    /// The SUT `sut start` left running, or null. A state whose process has ended, or whose pid now belongs to another
    /// program (pids are reused), is stale: it is deleted, so `sut stop` never signals a stranger.
    /// </summary>
    private static RunningSut? RunningSutOrNull()
    {
        if (ReadState() is { } state && Counters.DotnetProcesses.IsAlive(state.Pid) && IsSutProcess(state.Pid))
        {
            return state;
        }
        DeleteState();
        return null;
    }

    private static bool IsSutProcess(int pid)
    {
        try
        {
            return File.ReadAllText($"/proc/{pid}/cmdline").Contains("PerfLab.Sut", StringComparison.Ordinal);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return false;
        }
    }

    private static RunningSut? ReadState()
    {
        try
        {
            return File.Exists(StateFile) ? JsonSerializer.Deserialize<RunningSut>(File.ReadAllText(StateFile)) : null;
        }
        catch (JsonException)
        {
            return null;
        }
    }

    private static void WriteState(RunningSut state)
    {
        Directory.CreateDirectory(Path.GetDirectoryName(StateFile)!);
        File.WriteAllText(StateFile, JsonSerializer.Serialize(state));
    }

    private static void DeleteState()
    {
        if (File.Exists(StateFile))
        {
            File.Delete(StateFile);
        }
    }

}
