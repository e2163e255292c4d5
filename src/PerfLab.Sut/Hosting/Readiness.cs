using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;

namespace PerfLab.Sut.Hosting;

public static class Readiness
{
    /// <summary>The line perflab waits for; written to stdout whatever the Logging variant, once Kestrel listens.</summary>
    public const string Prefix = "perflab-sut: listening on ";

    public static void AnnounceReadiness(this WebApplication app)
    {
        app.Lifetime.ApplicationStarted.Register(() =>
        {
            var addresses = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()?.Addresses ?? [];
            foreach (var address in addresses)
            {
                Console.Out.WriteLine($"{Prefix}{address} (pid {Environment.ProcessId})");
            }
            Console.Out.Flush();
        });
    }
}
