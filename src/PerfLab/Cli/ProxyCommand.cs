using System.CommandLine;
using System.Globalization;
using System.Net;
using PerfLab.Common;
using PerfLab.Network;

namespace PerfLab.Cli;

/// <summary>perflab proxy --target 127.0.0.1:5000 --rtt 10ms: the latency proxy on its own, until Ctrl+C.</summary>
public static class ProxyCommand
{
    public static Command Create()
    {
        var target = new Option<string>("--target")
        {
            Description = "Where to forward connections: host:port, host being an IP address or localhost.",
            Required = true,
        };
        // No DefaultValueFactory: help would show it as 00:00:00.0100000; 10ms is applied where it is read.
        var rtt = new Option<TimeSpan?>("--rtt")
        {
            Description = "Round-trip time to add, with its unit: half is held in each direction (e.g. 10ms, 0.5s; default 10ms).",
            HelpName = "duration",
            CustomParser = r => OptionChecks.Duration(r, "--rtt", TimeSpan.Zero, LatencyProxy.MaxOneWayDelay * 2, unitRequired: true)
                ?? TimeSpan.Zero,
        };
        var port = new Option<int>("--port")
        {
            Description = "Port to listen on, on 127.0.0.1 (0: any free port, printed at start).",
            DefaultValueFactory = _ => 0,
        };
        target.Check(v => TryParseTarget(v ?? "", out _),
            v => $"--target must be host:port with an IP address or localhost, e.g. 127.0.0.1:5000 (got '{v}').");
        port.Check(v => v is >= 0 and <= 65535, "--port must be between 0 and 65535.");

        var command = new Command("proxy", "Forward TCP connections from 127.0.0.1 to a target, adding a round-trip "
            + "delay without limiting bandwidth.");
        command.Options.Add(target);
        command.Options.Add(rtt);
        command.Options.Add(port);
        command.SetAction(async (ParseResult pr, CancellationToken ct) =>
        {
            TryParseTarget(pr.GetValue(target)!, out var endPoint);
            var roundTrip = pr.GetValue(rtt) ?? TimeSpan.FromMilliseconds(10);
            await using var proxy = await LatencyProxy.StartAsync(endPoint!, roundTrip / 2, ct, pr.GetValue(port));
            var inv = CultureInfo.InvariantCulture;
            Console.Out.WriteLine(string.Create(inv, $"proxy: listening on {proxy.EndPoint}, forwarding to {endPoint}, "
                + $"adding {roundTrip.TotalMilliseconds:0.###} ms RTT. Ctrl+C stops."));
            var measured = await proxy.MeasureRoundTripsAsync(20, ct);
            Console.Out.WriteLine(string.Create(inv, $"proxy: RTT through the proxy, 20 round trips: "
                + $"median {measured.Median.TotalMilliseconds:0.000} ms (min {measured.Min.TotalMilliseconds:0.000}, "
                + $"max {measured.Max.TotalMilliseconds:0.000})."));
            try
            {
                await Task.Delay(Timeout.Infinite, ct);
            }
            catch (OperationCanceledException)
            {
                Console.Out.WriteLine(string.Create(inv, $"proxy: stopped after {proxy.ConnectionsServed} connection(s) "
                    + $"and {proxy.BytesForwarded} bytes forwarded."));
            }
            return (int)ExitCode.Success;
        });
        return command;
    }

    /// <summary>"127.0.0.1:5000", "[::1]:5000" or "localhost:5000".</summary>
    public static bool TryParseTarget(string text, out IPEndPoint? endPoint)
    {
        const string localhost = "localhost:";
        if (text.StartsWith(localhost, StringComparison.OrdinalIgnoreCase))
        {
            text = "127.0.0.1:" + text[localhost.Length..];
        }
        return IPEndPoint.TryParse(text, out endPoint) && endPoint.Port != 0;
    }
}
