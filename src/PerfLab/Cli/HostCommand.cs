using System.CommandLine;
using System.Net;
using PerfLab.Common;
using PerfLab.Hosts;

namespace PerfLab.Cli;

/// <summary>
/// <c>perflab host ROLE</c>: what the controller runs on a host over ssh. It talks over its standard input and output
/// and exits when its input closes (the ssh session ended), so nothing outlives the controller. Not meant for people.
/// </summary>
public static class HostCommand
{
    public static Command Create()
    {
        var command = new Command("host", "A role on a host, started by the controller over ssh (perflab load --hosts, see docs/hosts.md); "
            + "it exits when its session or standard input closes.")
        {
            Hidden = true,
        };
        command.Subcommands.Add(Load());
        command.Subcommands.Add(App());
        command.Subcommands.Add(Db());
        return command;
    }

    private static Command App()
    {
        var listen = Address("--listen", "This host's address the app listens on (port chosen by the system).");
        var command = new Command("app",
            "The app role: reads what to start (one JSON line: the built-in SUT's launch, or a user's app from its build copied " +
            "here), starts it on this host's address, says ready URL, checks its variant, streams its counters and JIT events and " +
            "sends its traces on request, stops it when its input closes.");
        command.Options.Add(listen);
        command.SetAction(async (pr, ct) =>
            await Heartbeat.ServeAsync(
                (input, lost) => AppRole.RunAsync(pr.GetRequiredValue(listen), new RoleLines(input, Console.Out), lost), ct));
        return command;
    }

    private static Command Db()
    {
        var listen = Address("--listen", "This host's address PostgreSQL listens on, beside loopback.");
        var allow = Address("--allow", "The one client address pg_hba accepts there: the app's host.");
        var command = new Command("db",
            "The db role: perflab's PostgreSQL on this host, open to the app host's login only, seeded; says ready PORT VERSION " +
            "PASSWORD, stops it when its input closes.");
        command.Options.Add(listen);
        command.Options.Add(allow);
        command.SetAction(async (pr, ct) =>
            await Heartbeat.ServeAsync((input, lost) => DatabaseRole.RunAsync(pr.GetRequiredValue(listen), pr.GetRequiredValue(allow),
                new RoleLines(input, Console.Out), lost), ct));
        return command;
    }

    /// <summary>An IP address option: it reaches PostgreSQL's command line and pg_hba, so nothing but an address gets through.</summary>
    private static Option<IPAddress> Address(string name, string description) => new(name)
    {
        Description = description,
        Required = true,
        CustomParser = r => IPAddress.TryParse(r.Tokens.Single().Value, out var ip) ? ip : Fail(r, name),
    };

    private static IPAddress Fail(System.CommandLine.Parsing.ArgumentResult r, string name)
    {
        r.AddError($"{name}: '{r.Tokens.Single().Value}' is not an IP address.");
        return IPAddress.None;
    }

    private static Command Load()
    {
        var index = new Option<int>("--index") { Description = "This generator's place among the generators, from 0.", Required = true };
        var count = new Option<int>("--of") { Description = "How many generators share the load.", Required = true };
        var command = new Command("load", "Load generator i of N: reads the controller's load plan (one JSON line) and a start time, "
            + "streams HdrHistogram interval logs and its result.");
        command.Options.Add(index);
        command.Options.Add(count);
        command.SetAction(async (pr, ct) =>
        {
            var share = new LoadShare(pr.GetValue(index), pr.GetValue(count));
            if (share.Count < 1 || share.Index < 0 || share.Index >= share.Count)
            {
                throw new PerfLabException("--index must lie in 0 .. --of - 1.", ExitCode.Usage);
            }
            return await Heartbeat.ServeAsync(async (input, lost) =>
            {
                var line = await input.ReadLineAsync(lost);
                if (line is null)
                {
                    return (int)ExitCode.Interrupted;
                }
                var plan = share.Apply(PlanWire.Read(line));
                return await GeneratorRole.RunAsync(plan, share, input, Console.Out, lost);
            }, ct);
        });
        return command;
    }
}
