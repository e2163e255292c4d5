using System.CommandLine;
using PerfLab.Common;
using PerfLab.Database;
using PerfLab.SutProcesses;

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

    private static Command Start()
    {
        var settings = new Option<string[]>("--set")
        {
            Description = "A SUT setting Key=Value, repeatable: DataAccess=sync|async|sync-over-async, "
                + "Serializer=newtonsoft|system-text-json|system-text-json-sourcegen, "
                + "Logging=none|default|locked-console|source-generated, DataLayer=ef-core|ado-net, Console=terminal (needs --foreground: "
                + "a pseudo-terminal perflab reads), ThreadPool:MinWorkerThreads=70, ThreadPool:MinCompletionPortThreads=70.",
            AllowMultipleArgumentsPerToken = false,
        };
        var env = new Option<string[]>("--env")
        {
            Description = "An environment variable Key=Value for the runtime, repeatable, e.g. DOTNET_gcServer=1, "
                + "DOTNET_GCDynamicAdaptationMode=0.",
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
        var foreground = new Option<bool>("--foreground")
        {
            Description = "Stay attached and stop the SUT on Ctrl+C, instead of leaving it running.",
        };
        var connection = DbOptions.ConnectionString();
        var dataDir = DbOptions.DataDir();

        var command = new Command("start", "Start the SUT on the seeded database (starting and seeding perflab's PostgreSQL if "
            + "needed) and print its address.");
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
                throw new PerfLabException($"--urls '{listen}' must be an http:// address on loopback, e.g. http://127.0.0.1:5000.",
                    ExitCode.Usage);
            }
            var request = new SutStartRequest(launchSettings, launchEnv, parse.GetValue(framework)!, listen,
                Detached: !parse.GetValue(foreground));
            var (connectionString, dataDirectory) = (parse.GetValue(connection), parse.GetValue(dataDir));
            return (int)await Control().StartAsync(request,
                token => DatabasePreparation.EnsureReadyAsync(connectionString, dataDirectory,
                    new InlineProgress<string>(Console.WriteLine), token), ct);
        });
        return command;
    }

    private static Command Stop()
    {
        var command = new Command("stop", "Stop the SUT that `perflab sut start` left running.");
        command.SetAction(async (_, _) => (int)await Control().StopAsync());
        return command;
    }

    private static Command Status()
    {
        var command = new Command("status", "Say whether a SUT started by `perflab sut start` is running, and what /info reports.");
        command.SetAction(async (_, ct) => (int)await Control().StatusAsync(ct));
        return command;
    }

    private static SutControl Control() => new(SutRegistry.Default, Console.Out, Console.Error);

    private static Dictionary<string, string> ParsePairs(string[] values, string option)
    {
        var pairs = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (var value in values)
        {
            var eq = value.IndexOf('=');
            if (eq <= 0)
            {
                throw new PerfLabException($"{option} '{value}' is not Key=Value, "
                    + $"e.g. {option} {(option == "--set" ? "DataAccess=sync" : "DOTNET_gcServer=1")}.", ExitCode.Usage);
            }
            pairs[value[..eq].Trim()] = value[(eq + 1)..].Trim();
        }
        return pairs;
    }
}
