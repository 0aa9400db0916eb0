<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>PolicyTester</name>
    <message>
        <source>Allowed</source>
        <translation>Erlaubt</translation>
    </message>
    <message>
        <source>Asked: held until you answer</source>
        <translation>Nachgefragt: wartet auf Ihre Antwort</translation>
    </message>
    <message>
        <source>Denied</source>
        <translation>Verweigert</translation>
    </message>
    <message>
        <source>“%1” is not a port number.</source>
        <translation>„%1“ ist keine Portnummer.</translation>
    </message>
    <message>
        <source>Write a host and a port, such as api.example.com:443.</source>
        <translation>Geben Sie einen Host und einen Port ein, etwa api.example.com:443.</translation>
    </message>
    <message>
        <source>The port must be a number from 1 to 65535.</source>
        <translation>Der Port muss eine Zahl von 1 bis 65535 sein.</translation>
    </message>
    <message>
        <source>No port given: port 443 assumed.</source>
        <translation>Kein Port angegeben: Port 443 angenommen.</translation>
    </message>
    <message>
        <source>The network mode is “host”: the agent uses this machine&apos;s network unfiltered, and no rule applies.</source>
        <translation>Der Netzwerkmodus ist „host“: Der Agent nutzt das Netzwerk dieses Rechners ungefiltert, und keine Regel greift.</translation>
    </message>
    <message>
        <source>Fix the rules first: %1</source>
        <translation>Korrigieren Sie zuerst die Regeln: %1</translation>
    </message>
    <message>
        <source>The network mode is “none”: the sandbox has no network at all.</source>
        <translation>Der Netzwerkmodus ist „none“: Die Sandbox hat überhaupt kein Netzwerk.</translation>
    </message>
    <message>
        <source>Your rule %1 decides: %2.</source>
        <translation>Ihre Regel %1 entscheidet: %2.</translation>
    </message>
    <message>
        <source>Learned rule %1 decides: %2.</source>
        <translation>Die gelernte Regel %1 entscheidet: %2.</translation>
    </message>
    <message>
        <source>A built-in block decides: %1. Only a rule that names this destination exactly opens it.</source>
        <translation>Eine eingebaute Sperre entscheidet: %1. Nur eine Regel, die genau dieses Ziel nennt, gibt es frei.</translation>
    </message>
    <message>
        <source>No rule matches, so the default decides (%1).</source>
        <translation>Keine Regel passt, daher entscheidet die Voreinstellung (%1).</translation>
    </message>
    <message>
        <source>Before connecting, the proxy checks the addresses the name resolves to: loopback, private networks or an address rule can still decide otherwise.</source>
        <translation>Vor dem Verbinden prüft der Proxy die Adressen, zu denen der Name aufgelöst wird: Loopback, private Netze oder eine Adressregel können noch anders entscheiden.</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation>%1 %2</translation>
    </message>
    <message>
        <source>your rule %1 (%2)</source>
        <translation>Ihre Regel %1 (%2)</translation>
    </message>
    <message>
        <source>learned rule %1 (%2)</source>
        <translation>gelernte Regel %1 (%2)</translation>
    </message>
    <message>
        <source>%1: %2, by %3</source>
        <translation>%1: %2, durch %3</translation>
    </message>
    <message>
        <source>Write a command line, such as git push origin main.</source>
        <translation>Geben Sie eine Befehlszeile ein, etwa git push origin main.</translation>
    </message>
    <message>
        <source>“%1” is not on this machine&apos;s PATH: matched by its name alone.</source>
        <translation>„%1“ ist nicht im PATH dieses Rechners: nur anhand des Namens verglichen.</translation>
    </message>
    <message>
        <source>The program is %1.</source>
        <translation>Das Programm ist %1.</translation>
    </message>
    <message>
        <source>a built-in block (%1)</source>
        <translation>eine eingebaute Sperre (%1)</translation>
    </message>
    <message>
        <source>the default</source>
        <translation>die Voreinstellung</translation>
    </message>
    <message>
        <source>Your answer earlier in this session decides: the rules would ask, and the session allows it without asking again.</source>
        <translation>Ihre frühere Antwort in dieser Sitzung entscheidet: Die Regeln würden fragen, und die Sitzung erlaubt es, ohne erneut zu fragen.</translation>
    </message>
    <message>
        <source>Your answer earlier in this session decides: the rules would ask, and the session denies it without asking again.</source>
        <translation>Ihre frühere Antwort in dieser Sitzung entscheidet: Die Regeln würden fragen, und die Sitzung verweigert es, ohne erneut zu fragen.</translation>
    </message>
    <message>
        <source>Your answer earlier in this session decides, before any rule: the session allows it without asking.</source>
        <translation>Ihre frühere Antwort in dieser Sitzung entscheidet, vor jeder Regel: Die Sitzung erlaubt es, ohne zu fragen.</translation>
    </message>
    <message>
        <source>Your answer earlier in this session decides, before any rule: the session denies it without asking.</source>
        <translation>Ihre frühere Antwort in dieser Sitzung entscheidet, vor jeder Regel: Die Sitzung verweigert es, ohne zu fragen.</translation>
    </message>
</context>
<context>
    <name>ReviewStyle</name>
    <message>
        <source>added</source>
        <translation>hinzugefügt</translation>
    </message>
    <message>
        <source>modified</source>
        <translation>geändert</translation>
    </message>
    <message>
        <source>deleted</source>
        <translation>gelöscht</translation>
    </message>
    <message>
        <source>conflict</source>
        <translation>Konflikt</translation>
    </message>
</context>
<context>
    <name>RuleText</name>
    <message>
        <source>Allow</source>
        <translation>Erlauben</translation>
    </message>
    <message>
        <source>Ask</source>
        <translation>Nachfragen</translation>
    </message>
    <message>
        <source>Deny</source>
        <translation>Verweigern</translation>
    </message>
    <message>
        <source>rule %1 (%2)</source>
        <translation>Regel %1 (%2)</translation>
    </message>
    <message>
        <source>command rule %1 (%2)</source>
        <translation>Befehlsregel %1 (%2)</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Supervise AI coding agents in a local sandbox.</source>
        <translation>KI-Programmieragenten in einer lokalen Sandbox beaufsichtigen.</translation>
    </message>
    <message>
        <source>Project folder of the new session.</source>
        <translation>Projektordner der neuen Sitzung.</translation>
    </message>
    <message>
        <source>Policy preset of the new session.</source>
        <translation>Richtlinienvorlage der neuen Sitzung.</translation>
    </message>
    <message>
        <source>Policy file of the new session.</source>
        <translation>Richtliniendatei der neuen Sitzung.</translation>
    </message>
    <message>
        <source>Network mode: none, filtered or host.</source>
        <translation>Netzwerkmodus: none, filtered oder host.</translation>
    </message>
    <message>
        <source>Start the built-in demo session.</source>
        <translation>Die eingebaute Demo-Sitzung starten.</translation>
    </message>
    <message>
        <source>Language of the window: en or de. Overrides $SANDBENCH_LANG, the setting and the system&apos;s language.</source>
        <translation>Sprache des Fensters: en oder de. Hat Vorrang vor $SANDBENCH_LANG, der Einstellung und der Systemsprache.</translation>
    </message>
    <message>
        <source>Command to start in a new session.</source>
        <translation>Befehl, der in einer neuen Sitzung gestartet wird.</translation>
    </message>
</context>
<context>
    <name>sbui</name>
    <message>
        <source>none</source>
        <translation>keine</translation>
    </message>
    <message>
        <source>sandbench-cli was not found</source>
        <translation>sandbench-cli wurde nicht gefunden</translation>
    </message>
    <message>
        <source>cannot start %1: %2</source>
        <translation>%1 kann nicht gestartet werden: %2</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 h %2 min</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 min %2 s</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>no translation for language &apos;%1&apos; (%2); available: %3</source>
        <translation>keine Übersetzung für die Sprache „%1“ (%2); verfügbar: %3</translation>
    </message>
    <message>
        <source>none</source>
        <comment>network mode</comment>
        <translation>kein</translation>
    </message>
    <message>
        <source>filtered</source>
        <translation>gefiltert</translation>
    </message>
    <message>
        <source>host</source>
        <translation>Host</translation>
    </message>
    <message>
        <source>allow</source>
        <translation>erlauben</translation>
    </message>
    <message>
        <source>ask</source>
        <translation>fragen</translation>
    </message>
    <message>
        <source>deny</source>
        <translation>verweigern</translation>
    </message>
    <message>
        <source>Name a host.</source>
        <translation>Nennen Sie einen Host.</translation>
    </message>
</context>
<context>
    <name>sbui::ActivityModel</name>
    <message>
        <source>allowed</source>
        <translation>erlaubt</translation>
    </message>
    <message>
        <source>denied</source>
        <translation>verweigert</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation>%1 %2</translation>
    </message>
    <message>
        <source>%1 %2 by %3</source>
        <translation>%1 %2 durch %3</translation>
    </message>
    <message>
        <source>%1 failed: %2</source>
        <translation>%1 fehlgeschlagen: %2</translation>
    </message>
    <message>
        <source>malformed proxy request: %1</source>
        <translation>fehlerhafte Proxy-Anfrage: %1</translation>
    </message>
    <message>
        <source>%1 closed (%2 up, %3 down)</source>
        <translation>%1 geschlossen (%2 gesendet, %3 empfangen)</translation>
    </message>
    <message>
        <source>looked up %1 (%2): %3</source>
        <translation>%1 nachgeschlagen (%2): %3</translation>
    </message>
    <message>
        <source>approval #%1 asked: %2</source>
        <translation>Freigabe #%1 angefragt: %2</translation>
    </message>
    <message>
        <source>approval #%1 timed out: %2</source>
        <translation>Freigabe #%1 abgelaufen: %2</translation>
    </message>
    <message>
        <source>approval #%1 cancelled: %2</source>
        <translation>Freigabe #%1 abgebrochen: %2</translation>
    </message>
    <message>
        <source>approval #%1 %2 (%3, by %4)</source>
        <translation>Freigabe #%1 %2 (%3, durch %4)</translation>
    </message>
    <message>
        <source>limit: %1</source>
        <translation>Grenze: %1</translation>
    </message>
    <message>
        <source>exit %1 (signal %2)</source>
        <translation>Exit-Status %1 (Signal %2)</translation>
    </message>
    <message>
        <source>exit %1</source>
        <translation>Exit-Status %1</translation>
    </message>
    <message>
        <source>policy: %1 rule %2 (%3)</source>
        <translation>Richtlinie: %1 Regel %2 (%3)</translation>
    </message>
    <message>
        <source>error: %1</source>
        <translation>Fehler: %1</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>Zeit</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>Art</translation>
    </message>
    <message>
        <source>What</source>
        <translation>Was</translation>
    </message>
    <message>
        <source>Decision</source>
        <translation>Entscheidung</translation>
    </message>
    <message>
        <source>Commands</source>
        <translation>Befehle</translation>
    </message>
    <message>
        <source>Network</source>
        <translation>Netzwerk</translation>
    </message>
    <message>
        <source>Approvals</source>
        <translation>Freigaben</translation>
    </message>
    <message>
        <source>Files</source>
        <translation>Dateien</translation>
    </message>
    <message>
        <source>Limits</source>
        <translation>Grenzen</translation>
    </message>
    <message>
        <source>Lifecycle and errors</source>
        <translation>Lebenszyklus und Fehler</translation>
    </message>
    <message>
        <source>command</source>
        <translation>Befehl</translation>
    </message>
    <message>
        <source>network</source>
        <translation>Netzwerk</translation>
    </message>
    <message>
        <source>approval</source>
        <translation>Freigabe</translation>
    </message>
    <message>
        <source>file</source>
        <translation>Datei</translation>
    </message>
    <message>
        <source>limit</source>
        <translation>Grenze</translation>
    </message>
    <message>
        <source>lifecycle</source>
        <translation>Lebenszyklus</translation>
    </message>
    <message>
        <source>error</source>
        <translation>Fehler</translation>
    </message>
    <message>
        <source>asked</source>
        <translation>nachgefragt</translation>
    </message>
    <message>
        <source>timed out</source>
        <translation>abgelaufen</translation>
    </message>
    <message>
        <source>added folder %1</source>
        <translation>Ordner %1 hinzugefügt</translation>
    </message>
    <message>
        <source>added %1</source>
        <translation>%1 hinzugefügt</translation>
    </message>
    <message>
        <source>modified %1</source>
        <translation>%1 geändert</translation>
    </message>
    <message>
        <source>deleted folder %1</source>
        <translation>Ordner %1 gelöscht</translation>
    </message>
    <message>
        <source>deleted %1</source>
        <translation>%1 gelöscht</translation>
    </message>
    <message>
        <source>renamed %1 to %2</source>
        <translation>%1 in %2 umbenannt</translation>
    </message>
    <message numerus="yes">
        <source>%n more file change(s)</source>
        <translation>
            <numerusform>%n weitere Dateiänderung</numerusform>
            <numerusform>%n weitere Dateiänderungen</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n more file change(s) in %1</source>
        <translation>
            <numerusform>%n weitere Dateiänderung in %1</numerusform>
            <numerusform>%n weitere Dateiänderungen in %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n added</source>
        <translation>
            <numerusform>%n hinzugefügt</numerusform>
            <numerusform>%n hinzugefügt</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n modified</source>
        <translation>
            <numerusform>%n geändert</numerusform>
            <numerusform>%n geändert</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n deleted</source>
        <translation>
            <numerusform>%n gelöscht</numerusform>
            <numerusform>%n gelöscht</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n renamed</source>
        <translation>
            <numerusform>%n umbenannt</numerusform>
            <numerusform>%n umbenannt</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 MiB</source>
        <translation>%1 MiB</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
    <message numerus="yes">
        <source>memory limit (%1) reached: the kernel reclaimed memory (%n time(s))</source>
        <translation>
            <numerusform>Speichergrenze (%1) erreicht: Der Kernel hat Speicher zurückgeholt (%n-mal)</numerusform>
            <numerusform>Speichergrenze (%1) erreicht: Der Kernel hat Speicher zurückgeholt (%n-mal)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>memory limit (%1) reached: %n process(es) killed</source>
        <translation>
            <numerusform>Speichergrenze (%1) erreicht: %n Prozess zwangsweise beendet</numerusform>
            <numerusform>Speichergrenze (%1) erreicht: %n Prozesse zwangsweise beendet</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>process limit (%1) reached: %n new process(es) refused</source>
        <translation>
            <numerusform>Prozessgrenze (%1) erreicht: %n neuer Prozess abgelehnt</numerusform>
            <numerusform>Prozessgrenze (%1) erreicht: %n neue Prozesse abgelehnt</numerusform>
        </translation>
    </message>
    <message>
        <source>time limit (%1) reached: the session was stopped</source>
        <translation>Zeitlimit (%1) erreicht: Die Sitzung wurde gestoppt</translation>
    </message>
    <message>
        <source>CPU time limit (%1) reached: the command was killed (SIGXCPU)</source>
        <translation>CPU-Zeitlimit (%1) erreicht: Der Befehl wurde zwangsweise beendet (SIGXCPU)</translation>
    </message>
    <message>
        <source>file size limit (%1) reached: the command was killed (SIGXFSZ)</source>
        <translation>Dateigrößengrenze (%1) erreicht: Der Befehl wurde zwangsweise beendet (SIGXFSZ)</translation>
    </message>
    <message>
        <source>policy changed by %1: %2 command rules, %3 network rules</source>
        <translation>Richtlinie geändert durch %1: %2 Befehlsregeln, %3 Netzwerkregeln</translation>
    </message>
    <message>
        <source>; applied: %1</source>
        <translation>; angewendet: %1</translation>
    </message>
    <message>
        <source>; for new sessions only: %1</source>
        <translation>; nur für neue Sitzungen: %1</translation>
    </message>
    <message>
        <source>recording</source>
        <translation>Aufzeichnung</translation>
    </message>
    <message>
        <source>started</source>
        <translation>gestartet</translation>
    </message>
    <message>
        <source>port %1 exposed at 127.0.0.1:%2 by %3</source>
        <translation>Port %1 unter 127.0.0.1:%2 freigegeben von %3</translation>
    </message>
    <message>
        <source>port %1 no longer exposed (%2)</source>
        <translation>Port %1 nicht mehr freigegeben (%2)</translation>
    </message>
    <message>
        <source>snapshot %1 taken by %2 (the sandbox frozen %3 ms)</source>
        <translation>Snapshot %1 aufgenommen von %2 (Sandbox %3 ms eingefroren)</translation>
    </message>
    <message>
        <source>port</source>
        <translation>Port</translation>
    </message>
    <message>
        <source>snapshot</source>
        <translation>Snapshot</translation>
    </message>
    <message>
        <source>The program started. What it does then is confined by the sandbox: what the sandbox refuses it (a mount, a debugger&apos;s call, a connection) is listed, and the command is then shown as refused; a read of a hidden file or a write to the read-only system simply fails, unlisted.</source>
        <translation>Das Programm ist gestartet. Was es danach tut, begrenzt die Sandbox: Was sie ihm verweigert (ein Einhängen, der Aufruf eines Debuggers, eine Verbindung), wird aufgeführt, und der Befehl erscheint dann als verweigert; das Lesen einer verborgenen Datei oder ein Schreiben ins schreibgeschützte System schlägt einfach fehl, ohne Eintrag.</translation>
    </message>
    <message>
        <source>refusal</source>
        <translation>Verweigerung</translation>
    </message>
    <message>
        <source>%1 refused by the sandbox&apos;s system call filter</source>
        <translation>%1 vom Systemaufruf-Filter der Sandbox verweigert</translation>
    </message>
    <message>
        <source>%1 refused by the sandbox&apos;s system call filter: %2 (pid %3)</source>
        <translation>%1 vom Systemaufruf-Filter der Sandbox verweigert: %2 (PID %3)</translation>
    </message>
    <message>
        <source>command %1 (in %2)</source>
        <translation>Befehl %1 (in %2)</translation>
    </message>
    <message>
        <source>connection to %1 (%2)</source>
        <translation>Verbindung zu %1 (%2)</translation>
    </message>
    <message>
        <source>process started: %1</source>
        <translation>Prozess gestartet: %1</translation>
    </message>
    <message>
        <source>process started by %1: %2</source>
        <translation>Prozess gestartet von %1: %2</translation>
    </message>
    <message>
        <source>denied by %1</source>
        <translation>verweigert durch %1</translation>
    </message>
    <message>
        <source>did not run: %1</source>
        <translation>nicht gestartet: %1</translation>
    </message>
    <message>
        <source>killed by %1</source>
        <translation>beendet durch %1</translation>
    </message>
    <message>
        <source>process %1 ended: %2 (%3 ms)</source>
        <translation>Prozess %1 beendet: %2 (%3 ms)</translation>
    </message>
    <message>
        <source>wrote %1 (%2)</source>
        <translation>%1 geschrieben (%2)</translation>
    </message>
    <message>
        <source>wrote %1</source>
        <translation>%1 geschrieben</translation>
    </message>
    <message>
        <source>removed %1</source>
        <translation>%1 entfernt</translation>
    </message>
    <message>
        <source>made folder %1</source>
        <translation>Ordner %1 angelegt</translation>
    </message>
    <message>
        <source>linked %1 to %2</source>
        <translation>Verknüpfung %1 → %2 angelegt</translation>
    </message>
    <message>
        <source>%1, by %2</source>
        <translation>%1, von %2</translation>
    </message>
    <message>
        <source>%1 %2 by rule %3</source>
        <translation>%1 %2 durch Regel %3</translation>
    </message>
    <message>
        <source>%1 %2 by the default action</source>
        <translation>%1 %2 durch die Standardaktion</translation>
    </message>
    <message>
        <source>%1 %2 when asked</source>
        <translation>%1 %2 auf Nachfrage</translation>
    </message>
    <message>
        <source>process</source>
        <translation>Prozess</translation>
    </message>
    <message>
        <source>file request</source>
        <translation>Dateizugriff</translation>
    </message>
    <message>
        <source>model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>leak</source>
        <translation>Leck</translation>
    </message>
    <message>
        <source>model %1 at %2: %3 tokens in, %4 out, %5 read from cache, %6 written to cache (%7 s)</source>
        <translation>Modell %1 bei %2: %3 Tokens hinein, %4 heraus, %5 aus dem Cache gelesen, %6 in den Cache geschrieben (%7 s)</translation>
    </message>
    <message>
        <source>, status %1</source>
        <translation>, Status %1</translation>
    </message>
    <message>
        <source>ATTEMPTED SECRET LEAK: %1 on its way to %2 (in the %3), refused</source>
        <translation>VERSUCHTES GEHEIMNIS-LECK: %1 auf dem Weg zu %2 (im Feld %3), abgewiesen</translation>
    </message>
    <message>
        <source>code</source>
        <translation>Code</translation>
    </message>
    <message>
        <source>code ran: %1 (error %2)</source>
        <translation>Code ausgeführt: %1 (Fehler %2)</translation>
    </message>
    <message numerus="yes">
        <source>code ran: %1 (%n result(s))</source>
        <translation>
            <numerusform>Code ausgeführt: %1 (%n Ergebnis)</numerusform>
            <numerusform>Code ausgeführt: %1 (%n Ergebnisse)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sbui::ActivityView</name>
    <message>
        <source>Commands</source>
        <translation>Befehle</translation>
    </message>
    <message>
        <source>Network</source>
        <translation>Netzwerk</translation>
    </message>
    <message>
        <source>Approvals</source>
        <translation>Freigaben</translation>
    </message>
    <message>
        <source>Files</source>
        <translation>Dateien</translation>
    </message>
    <message>
        <source>Limits</source>
        <translation>Grenzen</translation>
    </message>
    <message>
        <source>Lifecycle</source>
        <translation>Lebenszyklus</translation>
    </message>
    <message>
        <source>Denied only</source>
        <translation>Nur Verweigertes</translation>
    </message>
    <message>
        <source>Show only what was denied (also by a timeout)</source>
        <translation>Nur zeigen, was verweigert wurde (auch durch Zeitablauf)</translation>
    </message>
    <message>
        <source>Search (Ctrl+F)</source>
        <translation>Suchen (Strg+F)</translation>
    </message>
    <message>
        <source>Select an event to see all its fields.</source>
        <translation>Wählen Sie ein Ereignis, um alle seine Felder zu sehen.</translation>
    </message>
    <message>
        <source>%1: shown; click to hide</source>
        <translation>%1: angezeigt; Klicken blendet aus</translation>
    </message>
    <message>
        <source>%1: hidden; click to show</source>
        <translation>%1: ausgeblendet; Klicken zeigt an</translation>
    </message>
    <message>
        <source>No activity yet. Commands, connections, approvals and file changes show here as the session runs.</source>
        <translation>Noch keine Aktivität. Befehle, Verbindungen, Freigaben und Dateiänderungen erscheinen hier, während die Sitzung läuft.</translation>
    </message>
    <message>
        <source>No event matches the search or the filters.</source>
        <translation>Kein Ereignis passt zur Suche oder zu den Filtern.</translation>
    </message>
</context>
<context>
    <name>sbui::ApprovalCard</name>
    <message>
        <source>Command #%1</source>
        <translation>Befehl #%1</translation>
    </message>
    <message>
        <source>Connection #%1</source>
        <translation>Verbindung #%1</translation>
    </message>
    <message numerus="yes">
        <source>… (%n more characters)</source>
        <translation>
            <numerusform>… (%n weiteres Zeichen)</numerusform>
            <numerusform>… (%n weitere Zeichen)</numerusform>
        </translation>
    </message>
    <message>
        <source>Copy command line</source>
        <translation>Befehlszeile kopieren</translation>
    </message>
    <message>
        <source>Copy host and port</source>
        <translation>Host und Port kopieren</translation>
    </message>
    <message>
        <source>in %1</source>
        <translation>in %1</translation>
    </message>
    <message>
        <source>program %1</source>
        <translation>Programm %1</translation>
    </message>
    <message>
        <source>via %1</source>
        <translation>über %1</translation>
    </message>
    <message>
        <source>wanted by %1</source>
        <translation>verlangt von %1</translation>
    </message>
    <message>
        <source>started by %1</source>
        <translation>gestartet von %1</translation>
    </message>
    <message>
        <source>asked by %1</source>
        <translation>nachgefragt durch %1</translation>
    </message>
    <message>
        <source>Once</source>
        <translation>Einmal</translation>
    </message>
    <message>
        <source>This session</source>
        <translation>Diese Sitzung</translation>
    </message>
    <message>
        <source>Always (saved as a rule)</source>
        <translation>Immer (als Regel gespeichert)</translation>
    </message>
    <message>
        <source>How long the answer holds</source>
        <translation>Wie lange die Antwort gilt</translation>
    </message>
    <message>
        <source>Deny</source>
        <translation>Verweigern</translation>
    </message>
    <message>
        <source>Deny (Ctrl+Shift+N answers the focused or oldest request)</source>
        <translation>Verweigern (Strg+Umschalt+N beantwortet die ausgewählte oder älteste Anfrage)</translation>
    </message>
    <message>
        <source>Allow</source>
        <translation>Erlauben</translation>
    </message>
    <message>
        <source>Allow (Ctrl+Shift+Y answers the focused or oldest request)</source>
        <translation>Erlauben (Strg+Umschalt+Y beantwortet die ausgewählte oder älteste Anfrage)</translation>
    </message>
    <message>
        <source>the policy&apos;s default</source>
        <translation>die Voreinstellung der Richtlinie</translation>
    </message>
    <message>
        <source>This exact command</source>
        <translation>Genau dieser Befehl</translation>
    </message>
    <message>
        <source>Subcommand: %1</source>
        <translation>Unterbefehl: %1</translation>
    </message>
    <message>
        <source>Subcommand</source>
        <translation>Unterbefehl</translation>
    </message>
    <message>
        <source>Program: %1</source>
        <translation>Programm: %1</translation>
    </message>
    <message>
        <source>Program, any arguments</source>
        <translation>Programm, beliebige Argumente</translation>
    </message>
    <message>
        <source>Host and port: %1</source>
        <translation>Host und Port: %1</translation>
    </message>
    <message>
        <source>Host: %1 (any port)</source>
        <translation>Host: %1 (jeder Port)</translation>
    </message>
    <message>
        <source>this host</source>
        <translation>dieser Host</translation>
    </message>
    <message>
        <source>Domain: %1</source>
        <translation>Domain: %1</translation>
    </message>
    <message>
        <source>Domain</source>
        <translation>Domain</translation>
    </message>
    <message>
        <source>expired, waiting for the supervisor</source>
        <translation>abgelaufen, wartet auf den Supervisor</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 min %2 s</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 h %2 min</translation>
    </message>
    <message>
        <source>%1, then allowed</source>
        <translation>%1, dann erlaubt</translation>
    </message>
    <message>
        <source>%1, then denied</source>
        <translation>%1, dann verweigert</translation>
    </message>
    <message>
        <source>Allow sent, waiting…</source>
        <translation>Erlauben gesendet, wartet…</translation>
    </message>
    <message>
        <source>Deny sent, waiting…</source>
        <translation>Verweigern gesendet, wartet…</translation>
    </message>
    <message>
        <source>allowed</source>
        <translation>erlaubt</translation>
    </message>
    <message>
        <source>denied</source>
        <translation>verweigert</translation>
    </message>
    <message>
        <source>timed out, %1</source>
        <translation>abgelaufen, %1</translation>
    </message>
    <message>
        <source>cancelled (the supervisor stopped), %1</source>
        <translation>abgebrochen (der Supervisor wurde beendet), %1</translation>
    </message>
    <message>
        <source>always</source>
        <translation>immer</translation>
    </message>
    <message>
        <source>this session</source>
        <translation>diese Sitzung</translation>
    </message>
    <message>
        <source>once</source>
        <translation>einmal</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>%1 by %2 (%3)</source>
        <translation>%1 durch %2 (%3)</translation>
    </message>
    <message>
        <source>another client</source>
        <translation>einen anderen Client</translation>
    </message>
    <message>
        <source>; the rule was not saved: %1</source>
        <translation>; die Regel wurde nicht gespeichert: %1</translation>
    </message>
    <message>
        <source>#%1</source>
        <translation>#%1</translation>
    </message>
    <message>
        <source>#%1 %2</source>
        <translation>#%1 %2</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>What the answer covers</source>
        <translation>Wofür die Antwort gilt</translation>
    </message>
    <message>
        <source>A once answer covers this request only</source>
        <translation>Eine einmalige Antwort gilt nur für diese Anfrage</translation>
    </message>
    <message>
        <source>This session&apos;s policy is in no file, so there is nowhere to save a rule: an answer can hold for this session. Save the policy to a file (Policy tab) to keep answers as rules.</source>
        <translation>Die Richtlinie dieser Sitzung steht in keiner Datei, daher kann keine Regel gespeichert werden: Eine Antwort kann für diese Sitzung gelten. Speichern Sie die Richtlinie in einer Datei (Reiter Richtlinie), um Antworten als Regeln zu behalten.</translation>
    </message>
    <message>
        <source>This program only</source>
        <translation>Nur dieses Programm</translation>
    </message>
    <message>
        <source>The answer covers connections by %1 only, not by other programs</source>
        <translation>Die Antwort gilt nur für Verbindungen von %1, nicht für andere Programme</translation>
    </message>
    <message>
        <source>Suggested: %1</source>
        <translation>Vorgeschlagen: %1</translation>
    </message>
    <message>
        <source>Only the exact rule is suggested: %1.</source>
        <translation>Vorgeschlagen wird nur die genaue Regel: %1.</translation>
    </message>
    <message>
        <source>Saves %1, which also allows:</source>
        <translation>Speichert %1; das erlaubt auch:</translation>
    </message>
    <message>
        <source>%1 with any other arguments</source>
        <translation>%1 mit beliebigen anderen Argumenten</translation>
    </message>
    <message>
        <source>its destructive forms too, such as %1</source>
        <translation>auch seine zerstörenden Formen, etwa %1</translation>
    </message>
    <message>
        <source>a program named %1 anywhere, not only %2</source>
        <translation>ein Programm namens %1 an jedem Ort, nicht nur %2</translation>
    </message>
    <message>
        <source>every name under %1 on port %2, not only %3</source>
        <translation>jeden Namen unter %1 auf Port %2, nicht nur %3</translation>
    </message>
    <message>
        <source>any program (the one that connected is unknown)</source>
        <translation>jedes Programm (welches sich verbunden hat, ist unbekannt)</translation>
    </message>
    <message>
        <source>%1 is an interpreter: “%1 *” would run any program</source>
        <translation>%1 ist ein Interpreter: „%1 *“ würde jedes Programm ausführen</translation>
    </message>
    <message>
        <source>%1 destroys or overwrites what it is pointed at</source>
        <translation>%1 zerstört oder überschreibt, worauf es zeigt</translation>
    </message>
    <message>
        <source>%1 sends and fetches whatever it is told</source>
        <translation>%1 sendet und holt, was immer man ihm sagt</translation>
    </message>
    <message>
        <source>an address has no domain</source>
        <translation>eine Adresse hat keine Domain</translation>
    </message>
    <message>
        <source>the public suffix list cannot place %1</source>
        <translation>die Public-Suffix-Liste kann %1 nicht einordnen</translation>
    </message>
    <message>
        <source>a domain rule would reach past %1, its owner&apos;s domain</source>
        <translation>eine Domain-Regel reichte über %1 hinaus, die Domain seines Besitzers</translation>
    </message>
    <message>
        <source>Domain: %1, port %2</source>
        <translation>Domain: %1, Port %2</translation>
    </message>
    <message>
        <source>Suggested for an “always” answer: %1</source>
        <translation>Vorgeschlagen für die Antwort „immer“: %1</translation>
    </message>
</context>
<context>
    <name>sbui::ApprovalPanel</name>
    <message>
        <source>No pending approvals</source>
        <translation>Keine offenen Freigaben</translation>
    </message>
    <message>
        <source>Approvals (%1 pending)</source>
        <translation>Freigaben (%1 offen)</translation>
    </message>
    <message>
        <source>Approvals</source>
        <translation>Freigaben</translation>
    </message>
</context>
<context>
    <name>sbui::CommandPolicyPage</name>
    <message>
        <source>What happens to a program that no rule matches</source>
        <translation>Was mit einem Programm geschieht, auf das keine Regel passt</translation>
    </message>
    <message>
        <source>git push origin main</source>
        <translation>git push origin main</translation>
    </message>
    <message>
        <source>A command line, quoted as in a shell; one program, no pipes</source>
        <translation>Eine Befehlszeile, quotiert wie in einer Shell; ein Programm, keine Pipes</translation>
    </message>
    <message>
        <source>Allow %1</source>
        <translation>%1 erlauben</translation>
    </message>
    <message>
        <source>Deny %1</source>
        <translation>%1 verweigern</translation>
    </message>
    <message>
        <source>Any &amp;other command:</source>
        <translation>Alle &amp;anderen Befehle:</translation>
    </message>
</context>
<context>
    <name>sbui::CommandRulesModel</name>
    <message>
        <source>Action</source>
        <translation>Aktion</translation>
    </message>
    <message>
        <source>Command pattern</source>
        <translation>Befehlsmuster</translation>
    </message>
    <message>
        <source>Comment</source>
        <translation>Kommentar</translation>
    </message>
</context>
<context>
    <name>sbui::ConflictText</name>
    <message>
        <source>removed from the project since the session started</source>
        <translation>seit Sitzungsbeginn aus dem Projekt entfernt</translation>
    </message>
    <message>
        <source>created in the project since the session started</source>
        <translation>seit Sitzungsbeginn im Projekt angelegt</translation>
    </message>
    <message>
        <source>changed in the project since the session started</source>
        <translation>seit Sitzungsbeginn im Projekt geändert</translation>
    </message>
    <message>
        <source>“%1” changed in the project since the session started</source>
        <translation>„%1“ wurde seit Sitzungsbeginn im Projekt geändert</translation>
    </message>
    <message>
        <source>“%1” in the project could not be read</source>
        <translation>„%1“ im Projekt ließ sich nicht lesen</translation>
    </message>
</context>
<context>
    <name>sbui::DiffModel</name>
    <message>
        <source>No newline at end of file</source>
        <translation>Kein Zeilenumbruch am Dateiende</translation>
    </message>
</context>
<context>
    <name>sbui::DiffView</name>
    <message>
        <source>Side by side</source>
        <translation>Nebeneinander</translation>
    </message>
    <message>
        <source>Show the old and the new version next to each other</source>
        <translation>Die alte und die neue Fassung nebeneinander zeigen</translation>
    </message>
    <message>
        <source>Ignore white space</source>
        <translation>Leerraum ignorieren</translation>
    </message>
    <message>
        <source>Treat lines that differ only in white space as equal</source>
        <translation>Zeilen, die sich nur im Leerraum unterscheiden, als gleich behandeln</translation>
    </message>
    <message>
        <source>Whole file</source>
        <translation>Ganze Datei</translation>
    </message>
    <message>
        <source>Show every line, not only those around the changes</source>
        <translation>Alle Zeilen zeigen, nicht nur die um die Änderungen</translation>
    </message>
    <message>
        <source>added</source>
        <translation>hinzugefügt</translation>
    </message>
    <message>
        <source>deleted</source>
        <translation>gelöscht</translation>
    </message>
    <message>
        <source>modified</source>
        <translation>geändert</translation>
    </message>
    <message>
        <source>symbolic link, %1</source>
        <translation>symbolische Verknüpfung, %1</translation>
    </message>
    <message>
        <source>Select a changed file to see what the agent did to it.</source>
        <translation>Wählen Sie eine geänderte Datei, um zu sehen, was der Agent daran geändert hat.</translation>
    </message>
    <message>
        <source>A special file (a FIFO, socket or device): it has no content to compare, and applying never copies it.</source>
        <translation>Eine Spezialdatei (FIFO, Socket oder Gerät): Sie hat keinen vergleichbaren Inhalt und wird beim Übernehmen nie kopiert.</translation>
    </message>
    <message>
        <source>Comparing…</source>
        <translation>Wird verglichen…</translation>
    </message>
    <message>
        <source>An empty file.</source>
        <translation>Eine leere Datei.</translation>
    </message>
    <message>
        <source>Only white space changed.</source>
        <translation>Nur Leerraum wurde geändert.</translation>
    </message>
    <message>
        <source>The content is the same on both sides.</source>
        <translation>Der Inhalt ist auf beiden Seiten gleich.</translation>
    </message>
    <message>
        <source>(too different to match line by line)</source>
        <translation>(zu verschieden für einen zeilenweisen Abgleich)</translation>
    </message>
    <message>
        <source>%1, %2 (%3)</source>
        <translation>%1, %2 (%3)</translation>
    </message>
    <message>
        <source>Too large to compare here.</source>
        <translation>Zu groß für einen Vergleich hier.</translation>
    </message>
    <message>
        <source>Binary file.</source>
        <translation>Binärdatei.</translation>
    </message>
    <message>
        <source>Before: %1</source>
        <translation>Vorher: %1</translation>
    </message>
    <message>
        <source>none, the file is new</source>
        <translation>keine, die Datei ist neu</translation>
    </message>
    <message>
        <source>After: %1</source>
        <translation>Nachher: %1</translation>
    </message>
    <message>
        <source>none, the file was deleted</source>
        <translation>keine, die Datei wurde gelöscht</translation>
    </message>
    <message>
        <source>not an image</source>
        <translation>kein Bild</translation>
    </message>
    <message>
        <source>%1: %2 × %3 px, %4</source>
        <translation>%1: %2 × %3 px, %4</translation>
    </message>
    <message>
        <source>Before</source>
        <translation>Vorher</translation>
    </message>
    <message>
        <source>After</source>
        <translation>Nachher</translation>
    </message>
    <message>
        <source>View</source>
        <translation>Ansicht</translation>
    </message>
    <message>
        <source>How the change is shown</source>
        <translation>Wie die Änderung gezeigt wird</translation>
    </message>
    <message>
        <source>unchanged</source>
        <translation>unverändert</translation>
    </message>
    <message>
        <source>No change left here: the project holds the same version as the session.</source>
        <translation>Hier ist keine Änderung mehr: Das Projekt hat dieselbe Fassung wie die Sitzung.</translation>
    </message>
</context>
<context>
    <name>sbui::ExecutionBlock</name>
    <message>
        <source>The first %1 of %2 rows.</source>
        <translation>Die ersten %1 von %2 Zeilen.</translation>
    </message>
    <message>
        <source>%1 (%2) was not recorded: %3</source>
        <translation>%1 (%2) wurde nicht aufgezeichnet: %3</translation>
    </message>
    <message>
        <source>A %1 picture this window cannot show.</source>
        <translation>Ein Bild (%1), das dieses Fenster nicht zeigen kann.</translation>
    </message>
    <message>
        <source>Execution [%1]</source>
        <translation>Ausführung [%1]</translation>
    </message>
    <message>
        <source>Execution</source>
        <translation>Ausführung</translation>
    </message>
    <message>
        <source>default context</source>
        <translation>Standardkontext</translation>
    </message>
    <message>
        <source>context %1</source>
        <translation>Kontext %1</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>the code</source>
        <translation>dem Code</translation>
    </message>
    <message>
        <source>the output</source>
        <translation>der Ausgabe</translation>
    </message>
    <message>
        <source>the error output</source>
        <translation>der Fehlerausgabe</translation>
    </message>
    <message>
        <source>Only the beginning was recorded of %1.</source>
        <translation>Aufgezeichnet wurde nur der Anfang von %1.</translation>
    </message>
    <message numerus="yes">
        <source>%n more result(s) were not recorded.</source>
        <translation>
            <numerusform>%n weiteres Ergebnis wurde nicht aufgezeichnet.</numerusform>
            <numerusform>%n weitere Ergebnisse wurden nicht aufgezeichnet.</numerusform>
        </translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>Not yet run at this point of the replay.</source>
        <translation>An dieser Stelle der Wiedergabe noch nicht gelaufen.</translation>
    </message>
    <message>
        <source>Click (or press Enter) to go to this execution in the replay.</source>
        <translation>Klicken (oder Eingabetaste drücken), um in der Wiedergabe zu dieser Ausführung zu gehen.</translation>
    </message>
</context>
<context>
    <name>sbui::FileReviewPanel</name>
    <message numerus="yes">
        <source>  … and %n more</source>
        <translation>
            <numerusform>  … und %n weitere</numerusform>
            <numerusform>  … und %n weitere</numerusform>
        </translation>
    </message>
    <message>
        <source>&amp;Apply</source>
        <translation>&amp;Übernehmen</translation>
    </message>
    <message>
        <source>Write the selected change (or the changes in the selected folder) into the real project</source>
        <translation>Die ausgewählte Änderung (oder die Änderungen im ausgewählten Ordner) in das echte Projekt schreiben</translation>
    </message>
    <message>
        <source>&amp;Discard</source>
        <translation>&amp;Verwerfen</translation>
    </message>
    <message>
        <source>Drop the agent&apos;s version of the selection; the project keeps its own</source>
        <translation>Die Fassung des Agenten für die Auswahl verwerfen; das Projekt behält seine eigene</translation>
    </message>
    <message>
        <source>Apply all</source>
        <translation>Alle übernehmen</translation>
    </message>
    <message>
        <source>Write every change of the session into the real project</source>
        <translation>Alle Änderungen der Sitzung in das echte Projekt schreiben</translation>
    </message>
    <message>
        <source>Discard all</source>
        <translation>Alle verwerfen</translation>
    </message>
    <message>
        <source>Drop every change of the session</source>
        <translation>Alle Änderungen der Sitzung verwerfen</translation>
    </message>
    <message>
        <source>Keep the project&apos;s version</source>
        <translation>Fassung des Projekts behalten</translation>
    </message>
    <message>
        <source>Drop the agent&apos;s change; the project&apos;s newer version stays</source>
        <translation>Die Änderung des Agenten verwerfen; die neuere Fassung des Projekts bleibt</translation>
    </message>
    <message>
        <source>Take the agent&apos;s version</source>
        <translation>Fassung des Agenten nehmen</translation>
    </message>
    <message>
        <source>Overwrite the project&apos;s newer version with the agent&apos;s (apply with force)</source>
        <translation>Die neuere Fassung des Projekts mit der des Agenten überschreiben (erzwungenes Übernehmen)</translation>
    </message>
    <message>
        <source>Changed only</source>
        <translation>Nur Geändertes</translation>
    </message>
    <message>
        <source>Show only the changes and the folders holding them</source>
        <translation>Nur die Änderungen und die Ordner zeigen, die sie enthalten</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>Aktualisieren</translation>
    </message>
    <message>
        <source>Read the project folder again (it changed by other hands)</source>
        <translation>Den Projektordner neu einlesen (er wurde anderweitig geändert)</translation>
    </message>
    <message>
        <source>The session is still running: its changes show as the agent makes them, and can be applied or discarded once it ends.</source>
        <translation>Die Sitzung läuft noch: Ihre Änderungen erscheinen, während der Agent sie vornimmt, und können übernommen oder verworfen werden, sobald sie endet.</translation>
    </message>
    <message numerus="yes">
        <source>Discard all %n change(s) of this session? The agent&apos;s versions are lost; the project stays as it is.</source>
        <translation>
            <numerusform>Die %n Änderung dieser Sitzung verwerfen? Die Fassung des Agenten geht verloren; das Projekt bleibt, wie es ist.</numerusform>
            <numerusform>Alle %n Änderungen dieser Sitzung verwerfen? Die Fassungen des Agenten gehen verloren; das Projekt bleibt, wie es ist.</numerusform>
        </translation>
    </message>
    <message>
        <source>Discard the agent&apos;s changes to %1? Its versions are lost; the project stays as it is.</source>
        <translation>Die Änderungen des Agenten an %1 verwerfen? Seine Fassungen gehen verloren; das Projekt bleibt, wie es ist.</translation>
    </message>
    <message>
        <source>Discard changes</source>
        <translation>Änderungen verwerfen</translation>
    </message>
    <message>
        <source>Discard</source>
        <translation>Verwerfen</translation>
    </message>
    <message>
        <source>Cannot read the changes</source>
        <translation>Die Änderungen können nicht gelesen werden</translation>
    </message>
    <message numerus="yes">
        <source>%n change(s)</source>
        <translation>
            <numerusform>%n Änderung</numerusform>
            <numerusform>%n Änderungen</numerusform>
        </translation>
    </message>
    <message>
        <source>The agent deleted this folder and everything in it.</source>
        <translation>Der Agent hat diesen Ordner mit seinem gesamten Inhalt gelöscht.</translation>
    </message>
    <message numerus="yes">
        <source>A folder the agent created, with %n change(s) inside.</source>
        <translation>
            <numerusform>Ein vom Agenten angelegter Ordner mit %n Änderung darin.</numerusform>
            <numerusform>Ein vom Agenten angelegter Ordner mit %n Änderungen darin.</numerusform>
        </translation>
    </message>
    <message>
        <source>The agent put a folder where the project has a file.</source>
        <translation>Der Agent hat einen Ordner angelegt, wo das Projekt eine Datei hat.</translation>
    </message>
    <message numerus="yes">
        <source>%n change(s) inside. Select a file to see its diff.</source>
        <translation>
            <numerusform>%n Änderung darin. Wählen Sie eine Datei, um ihre Unterschiede zu sehen.</numerusform>
            <numerusform>%n Änderungen darin. Wählen Sie eine Datei, um ihre Unterschiede zu sehen.</numerusform>
        </translation>
    </message>
    <message>
        <source>Nothing changed in this folder.</source>
        <translation>In diesem Ordner hat sich nichts geändert.</translation>
    </message>
    <message>
        <source>Conflict: %1. Which version should the project keep?</source>
        <translation>Konflikt: %1. Welche Fassung soll das Projekt behalten?</translation>
    </message>
    <message numerus="yes">
        <source>%n change(s) here conflict with edits made in the project since the session started. Which versions should it keep?</source>
        <translation>
            <numerusform>%n Änderung hier steht im Konflikt mit Bearbeitungen im Projekt seit dem Start der Sitzung. Welche Fassung soll es behalten?</numerusform>
            <numerusform>%n Änderungen hier stehen im Konflikt mit Bearbeitungen im Projekt seit dem Start der Sitzung. Welche Fassungen soll es behalten?</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Applied %n change(s) to the project.</source>
        <translation>
            <numerusform>%n Änderung in das Projekt übernommen.</numerusform>
            <numerusform>%n Änderungen in das Projekt übernommen.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Discarded %n change(s).</source>
        <translation>
            <numerusform>%n Änderung verworfen.</numerusform>
            <numerusform>%n Änderungen verworfen.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n change(s) not applied: the project changed there since the session started. Select one to choose which version to keep.</source>
        <translation>
            <numerusform>%n Änderung nicht übernommen: Das Projekt hat sich dort seit dem Start der Sitzung geändert. Wählen Sie sie aus, um zu entscheiden, welche Fassung bleibt.</numerusform>
            <numerusform>%n Änderungen nicht übernommen: Das Projekt hat sich dort seit dem Start der Sitzung geändert. Wählen Sie eine aus, um zu entscheiden, welche Fassung bleibt.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n change(s) skipped:</source>
        <translation>
            <numerusform>%n Änderung übersprungen:</numerusform>
            <numerusform>%n Änderungen übersprungen:</numerusform>
        </translation>
    </message>
    <message>
        <source>• %1: %2</source>
        <translation>• %1: %2</translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) here run later, on this computer and outside the sandbox, when your own tools use them:</source>
        <translation>
            <numerusform>%n Datei hier wird später auf diesem Rechner außerhalb der Sandbox ausgeführt, wenn Ihre eigenen Werkzeuge sie verwenden:</numerusform>
            <numerusform>%n Dateien hier werden später auf diesem Rechner außerhalb der Sandbox ausgeführt, wenn Ihre eigenen Werkzeuge sie verwenden:</numerusform>
        </translation>
    </message>
    <message>
        <source>Write them into the project? Read their diff first: what they contain runs with your rights.</source>
        <translation>In das Projekt schreiben? Lesen Sie zuerst ihren Diff: Was sie enthalten, läuft mit Ihren Rechten.</translation>
    </message>
    <message>
        <source>Apply files that run later</source>
        <translation>Dateien übernehmen, die später ausgeführt werden</translation>
    </message>
    <message>
        <source>Apply them too</source>
        <translation>Auch diese übernehmen</translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) that run later held back: review each, then apply it on its own.</source>
        <translation>
            <numerusform>%n Datei, die später ausgeführt wird, zurückgehalten: prüfen Sie sie und übernehmen Sie sie dann einzeln.</numerusform>
            <numerusform>%n Dateien, die später ausgeführt werden, zurückgehalten: prüfen Sie jede und übernehmen Sie sie dann einzeln.</numerusform>
        </translation>
    </message>
    <message>
        <source>This file runs later, on this computer and outside the sandbox (%1). Apply all holds it back; Apply asks you first.</source>
        <translation>Diese Datei wird später auf diesem Rechner außerhalb der Sandbox ausgeführt (%1). „Alle übernehmen“ hält sie zurück; „Übernehmen“ fragt Sie zuerst.</translation>
    </message>
    <message>
        <source>Not while the session runs: its changes can be applied or discarded once it ends.</source>
        <translation>Nicht während die Sitzung läuft: Ihre Änderungen können übernommen oder verworfen werden, sobald sie endet.</translation>
    </message>
</context>
<context>
    <name>sbui::HostsView</name>
    <message>
        <source>&amp;Add</source>
        <translation>&amp;Hinzufügen</translation>
    </message>
    <message>
        <source>&amp;Remove</source>
        <translation>&amp;Entfernen</translation>
    </message>
    <message>
        <source>&amp;Connect now</source>
        <translation>Jetzt &amp;verbinden</translation>
    </message>
    <message>
        <source>ssh://user@host:port or an alias of ~/.ssh/config</source>
        <translation>ssh://benutzer@host:port oder ein Alias aus ~/.ssh/config</translation>
    </message>
    <message>
        <source>A host reached by ssh with your keys and ~/.ssh/config (never a password prompt); it needs Sandbench installed</source>
        <translation>Ein Host, erreicht per ssh mit Ihren Schlüsseln und ~/.ssh/config (nie eine Passwortabfrage); dort muss Sandbench installiert sein</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>Host</translation>
    </message>
    <message>
        <source>Connection</source>
        <translation>Verbindung</translation>
    </message>
    <message>
        <source>Forget the host; its sessions go on there</source>
        <translation>Den Host vergessen; seine Sitzungen laufen dort weiter</translation>
    </message>
    <message>
        <source>Dial the host now instead of waiting</source>
        <translation>Den Host jetzt anwählen, statt zu warten</translation>
    </message>
    <message>
        <source>Not added: %1</source>
        <translation>Nicht hinzugefügt: %1</translation>
    </message>
    <message>
        <source>not connected</source>
        <translation>nicht verbunden</translation>
    </message>
    <message>
        <source>%1
Last error: %2</source>
        <translation>%1
Letzter Fehler: %2</translation>
    </message>
</context>
<context>
    <name>sbui::LeakBanner</name>
    <message>
        <source>%1 to %2:%3</source>
        <translation>%1 an %2:%3</translation>
    </message>
    <message>
        <source>in the %1</source>
        <translation>im Feld %1</translation>
    </message>
    <message>
        <source>by %1</source>
        <translation>durch %1</translation>
    </message>
    <message>
        <source>&lt;b&gt;Attempted secret leak, refused:&lt;/b&gt; %1.</source>
        <translation>&lt;b&gt;Versuchtes Geheimnis-Leck, abgewiesen:&lt;/b&gt; %1.</translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;%n attempted secret leaks, refused;&lt;/b&gt; the last: %1.</source>
        <translation>
            <numerusform>&lt;b&gt;%n versuchtes Geheimnis-Leck, abgewiesen;&lt;/b&gt; das letzte: %1.</numerusform>
            <numerusform>&lt;b&gt;%n versuchte Geheimnis-Lecks, abgewiesen;&lt;/b&gt; das letzte: %1.</numerusform>
        </translation>
    </message>
    <message>
        <source>Details</source>
        <translation>Details</translation>
    </message>
</context>
<context>
    <name>sbui::MainWindow</name>
    <message>
        <source>&amp;New session…</source>
        <translation>&amp;Neue Sitzung…</translation>
    </message>
    <message>
        <source>Start an agent in a new sandbox (Ctrl+Shift+T)</source>
        <translation>Einen Agenten in einer neuen Sandbox starten (Strg+Umschalt+T)</translation>
    </message>
    <message>
        <source>&amp;Stop</source>
        <translation>&amp;Stoppen</translation>
    </message>
    <message>
        <source>Ask the session&apos;s programs to end (SIGTERM)</source>
        <translation>Die Programme der Sitzung bitten, sich zu beenden (SIGTERM)</translation>
    </message>
    <message>
        <source>&amp;Kill</source>
        <translation>So&amp;fort beenden</translation>
    </message>
    <message>
        <source>End the session&apos;s programs at once (SIGKILL)</source>
        <translation>Die Programme der Sitzung sofort beenden (SIGKILL)</translation>
    </message>
    <message>
        <source>Open &amp;workspace folder</source>
        <translation>Ordner des &amp;Arbeitsbereichs öffnen</translation>
    </message>
    <message>
        <source>Open the real project folder in the file manager</source>
        <translation>Den echten Projektordner in der Dateiverwaltung öffnen</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <source>Close the window; sessions keep running</source>
        <translation>Das Fenster schließen; Sitzungen laufen weiter</translation>
    </message>
    <message>
        <source>&amp;Session</source>
        <translation>&amp;Sitzung</translation>
    </message>
    <message>
        <source>Session</source>
        <translation>Sitzung</translation>
    </message>
    <message>
        <source>Sessions</source>
        <translation>Sitzungen</translation>
    </message>
    <message>
        <source>Approvals</source>
        <translation>Freigaben</translation>
    </message>
    <message>
        <source>Approvals (%1 waiting)</source>
        <translation>Freigaben (%1 wartend)</translation>
    </message>
    <message>
        <source>Activity</source>
        <translation>Aktivität</translation>
    </message>
    <message>
        <source>The session did not start</source>
        <translation>Die Sitzung wurde nicht gestartet</translation>
    </message>
    <message>
        <source>Starting session %1…</source>
        <translation>Sitzung %1 wird gestartet…</translation>
    </message>
    <message>
        <source>The supervisor did not answer within %1 s.</source>
        <translation>Der Supervisor hat nicht innerhalb von %1 s geantwortet.</translation>
    </message>
    <message>
        <source>network %1 · commands %2 · memory %3 · processes %4 · time limit %5</source>
        <translation>Netzwerk %1 · Befehle %2 · Speicher %3 · Prozesse %4 · Zeitlimit %5</translation>
    </message>
    <message>
        <source> MB</source>
        <translation> MB</translation>
    </message>
    <message>
        <source> s</source>
        <translation> s</translation>
    </message>
    <message>
        <source>Cannot attach: %1<byte value="xd"/>
</source>
        <translation>Verbinden nicht möglich: %1<byte value="xd"/>
</translation>
    </message>
    <message>
        <source>Approval needed: %1</source>
        <translation>Freigabe nötig: %1</translation>
    </message>
    <message>
        <source>%1 wants to run or reach: %2</source>
        <translation>%1 möchte ausführen oder erreichen: %2</translation>
    </message>
    <message>
        <source>Kill the session?</source>
        <translation>Sitzung sofort beenden?</translation>
    </message>
    <message>
        <source>Every program of session %1 ends at once, without a chance to save. Its workspace changes stay reviewable.</source>
        <translation>Alle Programme der Sitzung %1 werden sofort beendet, ohne Gelegenheit zum Speichern. Die Änderungen in ihrem Arbeitsbereich bleiben prüfbar.</translation>
    </message>
    <message>
        <source>Sandbench</source>
        <translation>Sandbench</translation>
    </message>
    <message numerus="yes">
        <source>(%n waiting) </source>
        <translation>
            <numerusform>(%n wartend) </numerusform>
            <numerusform>(%n wartend) </numerusform>
        </translation>
    </message>
    <message>
        <source>No session selected</source>
        <translation>Keine Sitzung ausgewählt</translation>
    </message>
    <message>
        <source>Recordings unreadable: %1</source>
        <translation>Aufzeichnungen nicht lesbar: %1</translation>
    </message>
    <message>
        <source>Session %1 running in the sandbox</source>
        <translation>Sitzung %1 läuft in der Sandbox</translation>
    </message>
    <message>
        <source>Session %1 was interrupted (recorded)</source>
        <translation>Sitzung %1 wurde unterbrochen (aufgezeichnet)</translation>
    </message>
    <message>
        <source>Session %1 ended, exit %2 (recorded)</source>
        <translation>Sitzung %1 beendet, Exit-Status %2 (aufgezeichnet)</translation>
    </message>
    <message>
        <source>Start the &amp;demo</source>
        <translation>&amp;Demo starten</translation>
    </message>
    <message>
        <source>A scripted agent over a fresh copy of a small demo project</source>
        <translation>Ein geskripteter Agent auf einer frischen Kopie eines kleinen Demo-Projekts</translation>
    </message>
    <message>
        <source>Terminal</source>
        <translation>Terminal</translation>
    </message>
    <message>
        <source>Changes</source>
        <translation>Änderungen</translation>
    </message>
    <message>
        <source>Replay</source>
        <translation>Wiedergabe</translation>
    </message>
    <message>
        <source>Changes (%1)</source>
        <translation>Änderungen (%1)</translation>
    </message>
    <message>
        <source>Session %1 ended (recorded)</source>
        <translation>Sitzung %1 beendet (aufgezeichnet)</translation>
    </message>
    <message>
        <source>Old recordings not deleted: %1</source>
        <translation>Alte Aufzeichnungen nicht gelöscht: %1</translation>
    </message>
    <message numerus="yes">
        <source>Deleted %n old recording(s) (%1).</source>
        <translation>
            <numerusform>%n alte Aufzeichnung gelöscht (%1).</numerusform>
            <numerusform>%n alte Aufzeichnungen gelöscht (%1).</numerusform>
        </translation>
    </message>
    <message>
        <source>Se&amp;ttings…</source>
        <translation>&amp;Einstellungen…</translation>
    </message>
    <message>
        <source>Terminal font, new session defaults, notifications, recordings, language</source>
        <translation>Terminalschrift, Vorgaben für neue Sitzungen, Benachrichtigungen, Aufzeichnungen, Sprache</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>&amp;Bearbeiten</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <source>Open &amp;policy…</source>
        <translation>&amp;Richtlinie öffnen…</translation>
    </message>
    <message>
        <source>Open a policy file to edit its network and command rules</source>
        <translation>Eine Richtliniendatei öffnen, um ihre Netzwerk- und Befehlsregeln zu bearbeiten</translation>
    </message>
    <message>
        <source>Policy</source>
        <translation>Richtlinie</translation>
    </message>
    <message>
        <source>Policy (modified)</source>
        <translation>Richtlinie (geändert)</translation>
    </message>
    <message>
        <source>Stopping session %1: its programs were asked to end.</source>
        <translation>Sitzung %1 wird beendet: Ihre Programme wurden gebeten, sich zu beenden.</translation>
    </message>
    <message>
        <source>Session %1 is still running: a program ignores the request to end. It is killed %2 s after Stop, or use Kill now.</source>
        <translation>Sitzung %1 läuft noch: Ein Programm ignoriert die Bitte, sich zu beenden. Sie wird %2 s nach „Stoppen“ beendet, oder nutzen Sie jetzt „Sofort beenden“.</translation>
    </message>
    <message>
        <source>Approvals: none waiting</source>
        <translation>Freigaben: keine wartet</translation>
    </message>
    <message>
        <source>&amp;Policy</source>
        <translation>&amp;Richtlinie</translation>
    </message>
    <message>
        <source>&amp;Resume…</source>
        <translation>For&amp;tsetzen…</translation>
    </message>
    <message>
        <source>Start a new session that goes on with this ended session&apos;s changes</source>
        <translation>Eine neue Sitzung starten, die mit den Änderungen dieser beendeten Sitzung weitermacht</translation>
    </message>
    <message>
        <source>Ports</source>
        <translation>Ports</translation>
    </message>
    <message>
        <source>Ports (%1)</source>
        <translation>Ports (%1)</translation>
    </message>
    <message>
        <source>Forked as %1: Session → Resume… goes on with it</source>
        <translation>Abgezweigt als %1: Sitzung → Fortsetzen… macht damit weiter</translation>
    </message>
    <message>
        <source>S&amp;napshots…</source>
        <translation>S&amp;napshots…</translation>
    </message>
    <message>
        <source>Keep a copy of this session&apos;s changes, restore one, or fork a new session from it</source>
        <translation>Eine Kopie der Änderungen dieser Sitzung aufbewahren, eine wiederherstellen oder eine neue Sitzung davon abzweigen</translation>
    </message>
    <message>
        <source>Session %1 has no recording, but changes waiting: review them in Changes, or go on with them with Session → Resume….</source>
        <translation>Sitzung %1 hat keine Aufzeichnung, aber wartende Änderungen: Prüfen Sie sie unter „Änderungen“, oder machen Sie mit Sitzung → Fortsetzen… damit weiter.</translation>
    </message>
    <message>
        <source>Session %1 is a fork of %2 and has not run yet: review its changes in Changes, or go on with them with Session → Resume….</source>
        <translation>Sitzung %1 ist von %2 abgezweigt und ist noch nicht gelaufen: Prüfen Sie ihre Änderungen unter „Änderungen“, oder machen Sie mit Sitzung → Fortsetzen… damit weiter.</translation>
    </message>
    <message>
        <source>Session %1 has no recording; its changes wait</source>
        <translation>Sitzung %1 hat keine Aufzeichnung; ihre Änderungen warten</translation>
    </message>
    <message>
        <source>Session %1, forked from %2, has not run yet</source>
        <translation>Sitzung %1, abgezweigt von %2, ist noch nicht gelaufen</translation>
    </message>
    <message>
        <source>Session %1 · %2 · %3</source>
        <translation>Sitzung %1 · %2 · %3</translation>
    </message>
    <message>
        <source>Session %1
in %2
%3</source>
        <translation>Sitzung %1
in %2
%3</translation>
    </message>
    <message>
        <source>&amp;Suggest from sessions…</source>
        <translation>&amp;Aus Sitzungen vorschlagen…</translation>
    </message>
    <message>
        <source>Propose a policy from recorded sessions: rules for what they did that a policy would ask about, with their evidence</source>
        <translation>Eine Richtlinie aus aufgezeichneten Sitzungen vorschlagen: Regeln für das, was sie taten und wonach eine Richtlinie fragen würde, mit ihren Belegen</translation>
    </message>
    <message>
        <source>Go to the sessions &amp;list</source>
        <translation>Zur Sitzungs&amp;liste</translation>
    </message>
    <message>
        <source>Models</source>
        <translation>Modelle</translation>
    </message>
    <message numerus="yes">
        <source>Models (%n leak(s)!)</source>
        <translation>
            <numerusform>Modelle (%n Leck!)</numerusform>
            <numerusform>Modelle (%n Lecks!)</numerusform>
        </translation>
    </message>
    <message>
        <source>Models (%1)</source>
        <translation>Modelle (%1)</translation>
    </message>
    <message>
        <source>Session %1 running in its sandbox on %2</source>
        <translation>Sitzung %1 läuft in ihrer Sandbox auf %2</translation>
    </message>
    <message>
        <source>Session %1 on %2 ended</source>
        <translation>Sitzung %1 auf %2 beendet</translation>
    </message>
    <message>
        <source>Remote hosts</source>
        <translation>Entfernte Hosts</translation>
    </message>
    <message>
        <source>Remote &amp;hosts</source>
        <translation>Entfernte &amp;Hosts</translation>
    </message>
    <message>
        <source>Hosts reached over ssh whose sessions this window shows and answers</source>
        <translation>Per ssh erreichte Hosts, deren Sitzungen dieses Fenster zeigt und beantwortet</translation>
    </message>
    <message>
        <source>Results</source>
        <translation>Ergebnisse</translation>
    </message>
    <message>
        <source>Results (%1)</source>
        <translation>Ergebnisse (%1)</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>On %1
%2</source>
        <translation>Auf %1
%2</translation>
    </message>
    <message>
        <source>%1 on %2 (%3)</source>
        <translation>%1 auf %2 (%3)</translation>
    </message>
    <message>
        <source>%1 is not among the hosts</source>
        <translation>%1 ist keiner der Hosts</translation>
    </message>
    <message>
        <source>The recording of %1 on %2 is too large to fetch (%3 MB, at most %4 MB here): sandbench-cli --host %5 replay %1 plays it from there.</source>
        <translation>Die Aufzeichnung von %1 auf %2 ist zu groß zum Holen (%3 MB, hier höchstens %4 MB): sandbench-cli --host %5 replay %1 spielt sie von dort ab.</translation>
    </message>
    <message>
        <source>Fetching the recording of %1 from %2…</source>
        <translation>Die Aufzeichnung von %1 wird von %2 geholt…</translation>
    </message>
    <message>
        <source>exit status %1</source>
        <translation>Exit-Status %1</translation>
    </message>
    <message>
        <source>The recording could not be fetched from %1: %2</source>
        <translation>Die Aufzeichnung konnte nicht von %1 geholt werden: %2</translation>
    </message>
    <message>
        <source>Session %1 on %2 has ended: its terminal plays in Replay, read from there, and its changes are in Changes.</source>
        <translation>Sitzung %1 auf %2 ist beendet: ihr Terminal spielt in Wiedergabe, von dort gelesen, und ihre Änderungen stehen in Änderungen.</translation>
    </message>
    <message>
        <source>Not connected to %1: its recordings are read through the connection.</source>
        <translation>Nicht mit %1 verbunden: seine Aufzeichnungen werden über die Verbindung gelesen.</translation>
    </message>
    <message>
        <source>Asking %1 for the recording of %2…</source>
        <translation>%1 wird nach der Aufzeichnung von %2 gefragt…</translation>
    </message>
    <message>
        <source>%1 lists no recording of session %2.</source>
        <translation>%1 führt keine Aufzeichnung der Sitzung %2.</translation>
    </message>
    <message>
        <source>Results (%1/%2)</source>
        <translation>Ergebnisse (%1/%2)</translation>
    </message>
</context>
<context>
    <name>sbui::ModelUsageView</name>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>Requests</source>
        <translation>Anfragen</translation>
    </message>
    <message>
        <source>Input</source>
        <translation>Eingabe</translation>
    </message>
    <message>
        <source>Read from cache</source>
        <translation>Aus dem Cache</translation>
    </message>
    <message>
        <source>Written to cache</source>
        <translation>In den Cache</translation>
    </message>
    <message>
        <source>Output</source>
        <translation>Ausgabe</translation>
    </message>
    <message>
        <source>Estimated cost</source>
        <translation>Geschätzte Kosten</translation>
    </message>
    <message numerus="yes">
        <source>%n attempted secret leak(s), refused by the proxy:</source>
        <translation>
            <numerusform>%n versuchtes Geheimnis-Leck, vom Proxy abgewiesen:</numerusform>
            <numerusform>%n versuchte Geheimnis-Lecks, vom Proxy abgewiesen:</numerusform>
        </translation>
    </message>
    <message>
        <source>No model requests in this session. Requests through the proxy to a model API it reads (Anthropic Messages, OpenAI Chat Completions and Responses) show here with their tokens.</source>
        <translation>Keine Modellanfragen in dieser Sitzung. Anfragen über den Proxy an eine Modell-API, die er liest (Anthropic Messages, OpenAI Chat Completions und Responses), erscheinen hier mit ihren Tokens.</translation>
    </message>
    <message numerus="yes">
        <source>%n model request(s): %1 tokens in, %2 out; %3 read from the prompt cache, %4 written to it.</source>
        <translation>
            <numerusform>%n Modellanfrage: %1 Tokens hinein, %2 heraus; %3 aus dem Prompt-Cache gelesen, %4 hineingeschrieben.</numerusform>
            <numerusform>%n Modellanfragen: %1 Tokens hinein, %2 heraus; %3 aus dem Prompt-Cache gelesen, %4 hineingeschrieben.</numerusform>
        </translation>
    </message>
    <message>
        <source>Estimated cost: %1 (models without a price left out).</source>
        <translation>Geschätzte Kosten: %1 (Modelle ohne Preis nicht mitgezählt).</translation>
    </message>
    <message>
        <source>Estimated cost: %1.</source>
        <translation>Geschätzte Kosten: %1.</translation>
    </message>
    <message>
        <source>No cost estimate: the price table names none of these models.</source>
        <translation>Keine Kostenschätzung: Die Preistabelle nennt keines dieser Modelle.</translation>
    </message>
    <message>
        <source>(not named)</source>
        <translation>(ohne Namen)</translation>
    </message>
    <message>
        <source>no price</source>
        <translation>kein Preis</translation>
    </message>
    <message>
        <source>Costs are estimates from the list prices of %1 in %2; a model the table does not name has none. Edit a copy in ~/.config/sandbench/model-prices.json to use your own.</source>
        <translation>Die Kosten sind Schätzungen nach den Listenpreisen vom %1 in %2; ein Modell, das die Tabelle nicht nennt, hat keine. Für eigene Preise eine Kopie in ~/.config/sandbench/model-prices.json bearbeiten.</translation>
    </message>
    <message>
        <source>No cost estimates: %1</source>
        <translation>Keine Kostenschätzungen: %1</translation>
    </message>
</context>
<context>
    <name>sbui::NetworkPolicyPage</name>
    <message>
        <source>Check &amp;addresses</source>
        <translation>&amp;Adressen prüfen</translation>
    </message>
    <message>
        <source>Filtered through the proxy</source>
        <translation>Gefiltert über den Proxy</translation>
    </message>
    <message>
        <source>None: loopback only</source>
        <translation>Keins: nur Loopback</translation>
    </message>
    <message>
        <source>Host: unfiltered</source>
        <translation>Host: ungefiltert</translation>
    </message>
    <message>
        <source>How the sandbox reaches the network</source>
        <translation>Wie die Sandbox das Netzwerk erreicht</translation>
    </message>
    <message>
        <source>What happens to a connection that no rule matches</source>
        <translation>Was mit einer Verbindung geschieht, auf die keine Regel passt</translation>
    </message>
    <message>
        <source>&amp;Network:</source>
        <translation>&amp;Netzwerk:</translation>
    </message>
    <message>
        <source>api.example.com:443</source>
        <translation>api.example.com:443</translation>
    </message>
    <message>
        <source>A host and a port, such as api.example.com:443 or [fd00::1]:22; an IP address or a name</source>
        <translation>Ein Host und ein Port, etwa api.example.com:443 oder [fd00::1]:22; eine IP-Adresse oder ein Name</translation>
    </message>
    <message>
        <source>Look the name up (DNS) and decide for each of its addresses, as the proxy does before connecting</source>
        <translation>Den Namen nachschlagen (DNS) und für jede seiner Adressen entscheiden, wie es der Proxy vor dem Verbinden tut</translation>
    </message>
    <message>
        <source>With the host network the agent reaches everything this machine reaches, unfiltered and unrecorded: the rules below are not applied. Choose it only for an agent you trust.</source>
        <translation>Mit dem Host-Netzwerk erreicht der Agent alles, was dieser Rechner erreicht, ungefiltert und unaufgezeichnet: Die Regeln unten werden nicht angewendet. Wählen Sie es nur für einen Agenten, dem Sie vertrauen.</translation>
    </message>
    <message>
        <source>The sandbox has no network but loopback. The rules below apply only when the network is filtered.</source>
        <translation>Die Sandbox hat kein Netzwerk außer Loopback. Die Regeln unten gelten nur, wenn das Netzwerk gefiltert ist.</translation>
    </message>
    <message>
        <source>Looking up %1…</source>
        <translation>%1 wird nachgeschlagen…</translation>
    </message>
    <message>
        <source>%1 could not be looked up: %2. The proxy refuses a name it cannot resolve.</source>
        <translation>%1 konnte nicht nachgeschlagen werden: %2. Der Proxy lehnt einen Namen ab, den er nicht auflösen kann.</translation>
    </message>
    <message>
        <source>%1 resolves to:
%2</source>
        <translation>%1 wird aufgelöst zu:
%2</translation>
    </message>
    <message>
        <source>Allow %1 on any port</source>
        <translation>%1 auf jedem Port erlauben</translation>
    </message>
    <message>
        <source>Allow %1 on port %2</source>
        <translation>%1 auf Port %2 erlauben</translation>
    </message>
    <message>
        <source>Deny %1 on any port</source>
        <translation>%1 auf jedem Port verweigern</translation>
    </message>
    <message>
        <source>Deny %1 on port %2</source>
        <translation>%1 auf Port %2 verweigern</translation>
    </message>
    <message>
        <source>The path of the program that connects, for rules that name a program; empty: unknown, and then no such rule matches</source>
        <translation>Der Pfad des Programms, das sich verbindet, für Regeln, die ein Programm nennen; leer: unbekannt, und dann passt keine solche Regel</translation>
    </message>
    <message>
        <source>Connecting &amp;program (optional):</source>
        <translation>Verbindendes &amp;Programm (optional):</translation>
    </message>
    <message>
        <source>Any &amp;other host:</source>
        <translation>Alle &amp;anderen Hosts:</translation>
    </message>
</context>
<context>
    <name>sbui::NetworkRulesModel</name>
    <message>
        <source>any</source>
        <translation>jeder</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>Aktion</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>Host</translation>
    </message>
    <message>
        <source>Ports</source>
        <translation>Ports</translation>
    </message>
    <message>
        <source>Comment</source>
        <translation>Kommentar</translation>
    </message>
    <message>
        <source>%1 (program %2)</source>
        <translation>%1 (Programm %2)</translation>
    </message>
    <message>
        <source>%1 (command %2)</source>
        <translation>%1 (Befehl %2)</translation>
    </message>
    <message>
        <source>%1 (program %2, command %3)</source>
        <translation>%1 (Programm %2, Befehl %3)</translation>
    </message>
</context>
<context>
    <name>sbui::NewSessionDialog</name>
    <message>
        <source>New session</source>
        <translation>Neue Sitzung</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>Durchsuchen…</translation>
    </message>
    <message>
        <source>&amp;Workspace folder:</source>
        <translation>Ordner des &amp;Arbeitsbereichs:</translation>
    </message>
    <message>
        <source>&amp;Command:</source>
        <translation>&amp;Befehl:</translation>
    </message>
    <message>
        <source>Preset: %1</source>
        <translation>Vorlage: %1</translation>
    </message>
    <message>
        <source>Policy file…</source>
        <translation>Richtliniendatei…</translation>
    </message>
    <message>
        <source>&amp;Policy:</source>
        <translation>&amp;Richtlinie:</translation>
    </message>
    <message>
        <source>As the policy says</source>
        <translation>Wie in der Richtlinie</translation>
    </message>
    <message>
        <source>None (loopback only)</source>
        <translation>Keins (nur Loopback)</translation>
    </message>
    <message>
        <source>Filtered (through the approval proxy)</source>
        <translation>Gefiltert (über den Freigabe-Proxy)</translation>
    </message>
    <message>
        <source>Host (unfiltered, not recommended)</source>
        <translation>Host (ungefiltert, nicht empfohlen)</translation>
    </message>
    <message>
        <source>&amp;Network:</source>
        <translation>&amp;Netzwerk:</translation>
    </message>
    <message>
        <source> MB</source>
        <translation> MB</translation>
    </message>
    <message>
        <source>no limit</source>
        <translation>unbegrenzt</translation>
    </message>
    <message>
        <source> %</source>
        <translation> %</translation>
    </message>
    <message>
        <source> s</source>
        <translation> s</translation>
    </message>
    <message>
        <source>&amp;Memory:</source>
        <translation>Spe&amp;icher:</translation>
    </message>
    <message>
        <source>P&amp;rocesses:</source>
        <translation>Pr&amp;ozesse:</translation>
    </message>
    <message>
        <source>C&amp;PU (100 % = one core):</source>
        <translation>&amp;CPU (100 % = ein Kern):</translation>
    </message>
    <message>
        <source>&amp;Time limit:</source>
        <translation>&amp;Zeitlimit:</translation>
    </message>
    <message>
        <source>&amp;Start</source>
        <translation>&amp;Starten</translation>
    </message>
    <message>
        <source>Effective policy:</source>
        <translation>Wirksame Richtlinie:</translation>
    </message>
    <message>
        <source>Policy file: %1</source>
        <translation>Richtliniendatei: %1</translation>
    </message>
    <message>
        <source>Workspace folder</source>
        <translation>Ordner des Arbeitsbereichs</translation>
    </message>
    <message>
        <source>Policy file</source>
        <translation>Richtliniendatei</translation>
    </message>
    <message>
        <source>Policies (*.json);;All files (*)</source>
        <translation>Richtlinien (*.json);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Choose a workspace folder.</source>
        <translation>Wählen Sie einen Ordner für den Arbeitsbereich.</translation>
    </message>
    <message>
        <source>Command: %1</source>
        <translation>Befehl: %1</translation>
    </message>
    <message>
        <source>Enter the command to run.</source>
        <translation>Geben Sie den auszuführenden Befehl ein.</translation>
    </message>
    <message>
        <source>Network mode host gives the agent this machine&apos;s whole network, unfiltered and unrecorded.</source>
        <translation>Der Netzwerkmodus host gibt dem Agenten das gesamte Netzwerk dieses Rechners, ungefiltert und unaufgezeichnet.</translation>
    </message>
    <message>
        <source>%1 is not on this machine&apos;s PATH; it must exist inside the sandbox.</source>
        <translation>%1 ist nicht im PATH dieses Rechners; es muss in der Sandbox vorhanden sein.</translation>
    </message>
    <message>
        <source>How long a request waits for an answer before the policy&apos;s timeout action applies</source>
        <translation>Wie lange eine Anfrage auf eine Antwort wartet, bevor die Zeitablauf-Aktion der Richtlinie greift</translation>
    </message>
    <message>
        <source>&amp;Approval timeout:</source>
        <translation>Zeitlimit für &amp;Freigaben:</translation>
    </message>
    <message>
        <source>Create folder</source>
        <translation>Ordner anlegen</translation>
    </message>
    <message>
        <source>Create this folder, for a project that starts empty</source>
        <translation>Diesen Ordner anlegen, für ein Projekt, das leer beginnt</translation>
    </message>
    <message>
        <source>Cannot create %1.</source>
        <translation>%1 kann nicht angelegt werden.</translation>
    </message>
    <message>
        <source>Image: %1</source>
        <translation>Abbild: %1</translation>
    </message>
    <message>
        <source>Where /usr, /etc and /lib come from: this machine, or an image imported with sandbench-cli image import</source>
        <translation>Woher /usr, /etc und /lib kommen: von diesem Rechner oder aus einem mit sandbench-cli image import eingelesenen Abbild</translation>
    </message>
    <message>
        <source>S&amp;ystem:</source>
        <translation>S&amp;ystem:</translation>
    </message>
    <message>
        <source>Resume session %1</source>
        <translation>Sitzung %1 fortsetzen</translation>
    </message>
    <message>
        <source>The changes of session %1 are to this folder</source>
        <translation>Die Änderungen der Sitzung %1 gehören zu diesem Ordner</translation>
    </message>
    <message>
        <source>Res&amp;ume</source>
        <translation>For&amp;tsetzen</translation>
    </message>
    <message>
        <source>Looser than session %1 ran under: %2.</source>
        <translation>Lockerer als die Richtlinie der Sitzung %1: %2.</translation>
    </message>
    <message>
        <source>&amp;Observe: ask nothing, record what would have been asked</source>
        <translation>&amp;Beobachten: nichts fragen, aufzeichnen, was gefragt worden wäre</translation>
    </message>
    <message>
        <source>To learn a policy (Policy → Suggest from sessions…): what the policy would ask is allowed and recorded as such; its deny rules still deny, and the sandbox is the same</source>
        <translation>Um eine Richtlinie zu lernen (Richtlinie → Aus Sitzungen vorschlagen…): Was die Richtlinie fragen würde, wird erlaubt und als solches aufgezeichnet; ihre Verbotsregeln verbieten weiterhin, und die Sandbox bleibt dieselbe</translation>
    </message>
</context>
<context>
    <name>sbui::ObservedModel</name>
    <message>
        <source>allowed when asked</source>
        <translation>auf Nachfrage erlaubt</translation>
    </message>
    <message>
        <source>denied when asked</source>
        <translation>auf Nachfrage verweigert</translation>
    </message>
    <message>
        <source>Destination</source>
        <translation>Ziel</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>Befehl</translation>
    </message>
    <message>
        <source>Decision</source>
        <translation>Entscheidung</translation>
    </message>
    <message>
        <source>Times</source>
        <translation>Anzahl</translation>
    </message>
    <message>
        <source>Decided by</source>
        <translation>Entschieden durch</translation>
    </message>
</context>
<context>
    <name>sbui::PolicyDocument</name>
    <message>
        <source>Cannot read %1: %2</source>
        <translation>%1 kann nicht gelesen werden: %2</translation>
    </message>
    <message>
        <source>%1 is larger than 1 MiB: not a policy.</source>
        <translation>%1 ist größer als 1 MiB: keine Richtlinie.</translation>
    </message>
    <message>
        <source>There is no preset “%1”.</source>
        <translation>Es gibt keine Vorlage „%1“.</translation>
    </message>
    <message>
        <source>preset %1</source>
        <translation>Vorlage %1</translation>
    </message>
    <message>
        <source>the policy of session %1</source>
        <translation>die Richtlinie der Sitzung %1</translation>
    </message>
    <message>
        <source>Session %1 did not say which policy it runs.</source>
        <translation>Sitzung %1 hat nicht mitgeteilt, mit welcher Richtlinie sie läuft.</translation>
    </message>
    <message>
        <source>the policy</source>
        <translation>die Richtlinie</translation>
    </message>
    <message>
        <source>session-%1</source>
        <translation>sitzung-%1</translation>
    </message>
    <message>
        <source>Network rule %1: %2</source>
        <translation>Netzwerkregel %1: %2</translation>
    </message>
    <message>
        <source>Command rule %1: %2</source>
        <translation>Befehlsregel %1: %2</translation>
    </message>
    <message>
        <source>This policy is read-only: save it under a new name.</source>
        <translation>Diese Richtlinie ist schreibgeschützt: Speichern Sie sie unter einem neuen Namen.</translation>
    </message>
    <message>
        <source>The policy was saved, but the learned rules were left as they were: %1</source>
        <translation>Die Richtlinie wurde gespeichert, die gelernten Regeln blieben aber unverändert: %1</translation>
    </message>
</context>
<context>
    <name>sbui::PolicyEditor</name>
    <message>
        <source>Policies (*.json *.jsonc);;All files (*)</source>
        <translation>Richtlinien (*.json *.jsonc);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Presets</source>
        <translation>Vorlagen</translation>
    </message>
    <message>
        <source>Open one of the shipped presets (read-only: save it under a new name to change it)</source>
        <translation>Eine der mitgelieferten Vorlagen öffnen (schreibgeschützt: zum Ändern unter einem neuen Namen speichern)</translation>
    </message>
    <message>
        <source>Network</source>
        <translation>Netzwerk</translation>
    </message>
    <message>
        <source>Commands</source>
        <translation>Befehle</translation>
    </message>
    <message>
        <source>Select a running session to edit its policy, or open a policy file.</source>
        <translation>Wählen Sie eine laufende Sitzung, um ihre Richtlinie zu bearbeiten, oder öffnen Sie eine Richtliniendatei.</translation>
    </message>
    <message>
        <source>Open policy…</source>
        <translation>Richtlinie öffnen…</translation>
    </message>
    <message>
        <source>&amp;Open policy…</source>
        <translation>Richtlinie ö&amp;ffnen…</translation>
    </message>
    <message>
        <source>Open a policy file to edit it</source>
        <translation>Eine Richtliniendatei zum Bearbeiten öffnen</translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation>&amp;Speichern</translation>
    </message>
    <message>
        <source>Save the policy, keeping its comments (Ctrl+S)</source>
        <translation>Die Richtlinie speichern, ihre Kommentare bleiben erhalten (Strg+S)</translation>
    </message>
    <message>
        <source>Save &amp;as…</source>
        <translation>Speichern &amp;unter…</translation>
    </message>
    <message>
        <source>Save the policy in a new file and go on editing that one</source>
        <translation>Die Richtlinie in einer neuen Datei speichern und diese weiter bearbeiten</translation>
    </message>
    <message>
        <source>&amp;Revert</source>
        <translation>&amp;Zurücksetzen</translation>
    </message>
    <message>
        <source>Throw away the unsaved changes</source>
        <translation>Die nicht gespeicherten Änderungen verwerfen</translation>
    </message>
    <message>
        <source>Preset “%1”</source>
        <translation>Vorlage „%1“</translation>
    </message>
    <message>
        <source>Built-in policy</source>
        <translation>Eingebaute Richtlinie</translation>
    </message>
    <message>
        <source>%1 — the policy of session %2, which picks up what you save.</source>
        <translation>%1 – die Richtlinie der Sitzung %2, die übernimmt, was Sie speichern.</translation>
    </message>
    <message>
        <source>No policy open</source>
        <translation>Keine Richtlinie geöffnet</translation>
    </message>
    <message>
        <source>%1 (modified)</source>
        <translation>%1 (geändert)</translation>
    </message>
    <message>
        <source>Saved, but the session did not take the new policy: %1</source>
        <translation>Gespeichert, aber die Sitzung hat die neue Richtlinie nicht übernommen: %1</translation>
    </message>
    <message>
        <source>The session&apos;s policy cannot be shown: %1</source>
        <translation>Die Richtlinie der Sitzung kann nicht angezeigt werden: %1</translation>
    </message>
    <message>
        <source>%1 was not opened: %2</source>
        <translation>%1 wurde nicht geöffnet: %2</translation>
    </message>
    <message>
        <source>Open policy</source>
        <translation>Richtlinie öffnen</translation>
    </message>
    <message>
        <source>Not saved:
%1</source>
        <translation>Nicht gespeichert:
%1</translation>
    </message>
    <message>
        <source>Saved.</source>
        <translation>Gespeichert.</translation>
    </message>
    <message>
        <source>Save policy as</source>
        <translation>Richtlinie speichern unter</translation>
    </message>
    <message>
        <source>Saved as %1.</source>
        <translation>Gespeichert als %1.</translation>
    </message>
    <message>
        <source>Unsaved policy changes</source>
        <translation>Nicht gespeicherte Änderungen an der Richtlinie</translation>
    </message>
    <message>
        <source>The policy has changes that are not saved. Save them first?</source>
        <translation>Die Richtlinie hat nicht gespeicherte Änderungen. Zuerst speichern?</translation>
    </message>
    <message>
        <source>Saved. Sending the policy to session %1…</source>
        <translation>Gespeichert. Die Richtlinie wird an Sitzung %1 gesendet…</translation>
    </message>
    <message>
        <source>the network mode</source>
        <translation>der Netzwerkmodus</translation>
    </message>
    <message>
        <source>the network rules</source>
        <translation>die Netzwerkregeln</translation>
    </message>
    <message>
        <source>the command rules</source>
        <translation>die Befehlsregeln</translation>
    </message>
    <message>
        <source>the approval settings</source>
        <translation>die Freigabe-Einstellungen</translation>
    </message>
    <message>
        <source>Saved. Session %1 picked up the new policy.</source>
        <translation>Gespeichert. Sitzung %1 hat die neue Richtlinie übernommen.</translation>
    </message>
    <message>
        <source>Applied now: %1.</source>
        <translation>Sofort wirksam: %1.</translation>
    </message>
    <message>
        <source>Takes effect for new sessions: %1.</source>
        <translation>Wirksam für neue Sitzungen: %1.</translation>
    </message>
    <message>
        <source>A shipped preset is read-only: Save puts your changes in a new file.</source>
        <translation>Eine mitgelieferte Vorlage ist schreibgeschützt: „Speichern“ legt Ihre Änderungen in einer neuen Datei ab.</translation>
    </message>
    <message>
        <source>Session %1 runs this shipped preset, which is read-only: Save puts your changes in a new file, and the session switches to it.</source>
        <translation>Sitzung %1 läuft mit dieser mitgelieferten Vorlage, die schreibgeschützt ist: „Speichern“ legt Ihre Änderungen in einer neuen Datei ab, und die Sitzung wechselt zu ihr.</translation>
    </message>
    <message>
        <source>%1 is read-only: Save puts your changes in a new file.</source>
        <translation>%1 ist schreibgeschützt: „Speichern“ legt Ihre Änderungen in einer neuen Datei ab.</translation>
    </message>
    <message>
        <source>%1 is read-only: Save puts your changes in a new file, and session %2 switches to it.</source>
        <translation>%1 ist schreibgeschützt: „Speichern“ legt Ihre Änderungen in einer neuen Datei ab, und Sitzung %2 wechselt zu ihr.</translation>
    </message>
    <message>
        <source>Session %1 runs a policy that is in no file: Save puts it in a new file, and the session switches to it.</source>
        <translation>Sitzung %1 läuft mit einer Richtlinie, die in keiner Datei steht: „Speichern“ legt sie in einer neuen Datei ab, und die Sitzung wechselt zu ihr.</translation>
    </message>
    <message>
        <source>the exposed folders</source>
        <translation>die eingebundenen Ordner</translation>
    </message>
    <message>
        <source>the resource limits</source>
        <translation>die Ressourcengrenzen</translation>
    </message>
    <message>
        <source>the environment</source>
        <translation>die Umgebung</translation>
    </message>
    <message>
        <source>Saved. Session %1 has ended, so nothing was sent: a new session with this policy gets it.</source>
        <translation>Gespeichert. Sitzung %1 ist beendet, daher wurde nichts gesendet: Eine neue Sitzung mit dieser Richtlinie erhält sie.</translation>
    </message>
    <message>
        <source>Apply to this session</source>
        <translation>Für diese Sitzung anwenden</translation>
    </message>
    <message>
        <source>Give the session the rules its policy file says now; they apply at once</source>
        <translation>Der Sitzung die Regeln geben, die ihre Richtliniendatei jetzt nennt; sie gelten sofort</translation>
    </message>
    <message>
        <source>Policy of session %1</source>
        <translation>Richtlinie der Sitzung %1</translation>
    </message>
    <message>
        <source>Session %1 ended; it ran under this policy (from its recording, read-only: Save puts it in a new file).</source>
        <translation>Sitzung %1 ist beendet; sie lief unter dieser Richtlinie (aus ihrer Aufzeichnung, schreibgeschützt: „Speichern“ legt sie in einer neuen Datei ab).</translation>
    </message>
    <message>
        <source>Rules of session %1</source>
        <translation>Regeln der Sitzung %1</translation>
    </message>
    <message>
        <source>What session %1 runs now, read-only: Save puts it in a new file, and the session switches to it.</source>
        <translation>Was Sitzung %1 jetzt anwendet, schreibgeschützt: „Speichern“ legt es in einer neuen Datei ab, und die Sitzung wechselt zu ihr.</translation>
    </message>
    <message>
        <source>Shown: the rules this session runs. Its policy %1 cannot be read: %2</source>
        <translation>Angezeigt: die Regeln, die diese Sitzung anwendet. Ihre Richtlinie %1 ist nicht lesbar: %2</translation>
    </message>
    <message>
        <source>Shown: the rules this session runs. Its policy %1 says otherwise now (saved from another session, or edited).</source>
        <translation>Angezeigt: die Regeln, die diese Sitzung anwendet. Ihre Richtlinie %1 sagt inzwischen etwas anderes (aus einer anderen Sitzung gespeichert oder bearbeitet).</translation>
    </message>
    <message>
        <source>The recording of session %1 does not hold its policy (an older Sandbench recorded it).</source>
        <translation>Die Aufzeichnung der Sitzung %1 enthält ihre Richtlinie nicht (ein älteres Sandbench hat sie aufgezeichnet).</translation>
    </message>
    <message>
        <source>The policy of session %1 cannot be shown: %2</source>
        <translation>Die Richtlinie der Sitzung %1 kann nicht angezeigt werden: %2</translation>
    </message>
    <message>
        <source>Sending its policy file to session %1…</source>
        <translation>Ihre Richtliniendatei wird an Sitzung %1 gesendet…</translation>
    </message>
    <message>
        <source>Session %1 now runs the rules of its policy file.</source>
        <translation>Sitzung %1 wendet jetzt die Regeln ihrer Richtliniendatei an.</translation>
    </message>
</context>
<context>
    <name>sbui::PolicyPage</name>
    <message>
        <source>Your rules, checked in order: the first that matches decides. Drag a rule or use the arrows to change the order; double-click a cell to edit it.</source>
        <translation>Ihre Regeln, der Reihe nach geprüft: Die erste passende entscheidet. Ziehen Sie eine Regel oder nutzen Sie die Pfeile, um die Reihenfolge zu ändern; doppelklicken Sie auf eine Zelle, um sie zu bearbeiten.</translation>
    </message>
    <message>
        <source>Test</source>
        <translation>Test</translation>
    </message>
    <message>
        <source>Learned rules</source>
        <translation>Gelernte Regeln</translation>
    </message>
    <message>
        <source>Observed</source>
        <translation>Beobachtet</translation>
    </message>
    <message>
        <source>Would this be allowed?</source>
        <translation>Wäre das erlaubt?</translation>
    </message>
    <message>
        <source>The rules as shown decide, unsaved changes and learned rules included.</source>
        <translation>Es entscheiden die Regeln wie angezeigt, einschließlich nicht gespeicherter Änderungen und gelernter Regeln.</translation>
    </message>
    <message>
        <source>&amp;Move to my rules</source>
        <translation>Zu meinen Regeln &amp;verschieben</translation>
    </message>
    <message>
        <source>Make it one of your rules, where it takes effect now, and drop it from the learned rules when you save</source>
        <translation>Zu einer Ihrer Regeln machen, wo sie sofort wirkt, und beim Speichern aus den gelernten Regeln entfernen</translation>
    </message>
    <message>
        <source>&amp;Remove</source>
        <translation>&amp;Entfernen</translation>
    </message>
    <message>
        <source>Forget this answer when you save</source>
        <translation>Diese Antwort beim Speichern vergessen</translation>
    </message>
    <message>
        <source>Make a &amp;rule from this</source>
        <translation>&amp;Regel daraus machen</translation>
    </message>
    <message>
        <source>What the shown session did, each destination or command once with its latest decision.</source>
        <translation>Was die angezeigte Sitzung getan hat, jedes Ziel und jeder Befehl einmal mit der letzten Entscheidung.</translation>
    </message>
    <message>
        <source>Cannot tell</source>
        <translation>Nicht bestimmbar</translation>
    </message>
    <message>
        <source>Learned rules (%1)</source>
        <translation>Gelernte Regeln (%1)</translation>
    </message>
    <message>
        <source>Observed (%1)</source>
        <translation>Beobachtet (%1)</translation>
    </message>
    <message>
        <source>This policy has no learned-rules file.</source>
        <translation>Diese Richtlinie hat keine Datei für gelernte Regeln.</translation>
    </message>
    <message>
        <source>Answers given with “always”, kept in %1. They are checked before your rules, but never override a deny rule of yours that is at least as specific.</source>
        <translation>Mit „immer“ gegebene Antworten, gespeichert in %1. Sie werden vor Ihren Regeln geprüft, setzen sich aber nie über eine Ihrer Verweigern-Regeln hinweg, die mindestens ebenso genau ist.</translation>
    </message>
    <message>
        <source>The learned rules could not be read, and are left as they are: %1</source>
        <translation>Die gelernten Regeln konnten nicht gelesen werden und bleiben unverändert: %1</translation>
    </message>
</context>
<context>
    <name>sbui::PolicySuggestDialog</name>
    <message>
        <source>command %1</source>
        <translation>Befehl %1</translation>
    </message>
    <message>
        <source>host %1 port %2</source>
        <translation>Host %1 Port %2</translation>
    </message>
    <message>
        <source> by %1</source>
        <translation> durch %1</translation>
    </message>
    <message numerus="yes">
        <source>%n time(s) in %1, e.g. %2</source>
        <translation>
            <numerusform>%n Mal in %1, z. B. %2</numerusform>
            <numerusform>%n Mal in %1, z. B. %2</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n session(s)</source>
        <translation>
            <numerusform>%n Sitzung</numerusform>
            <numerusform>%n Sitzungen</numerusform>
        </translation>
    </message>
    <message>
        <source>&amp;Suggest</source>
        <translation>&amp;Vorschlagen</translation>
    </message>
    <message>
        <source>Save &amp;as…</source>
        <translation>Speichern &amp;unter…</translation>
    </message>
    <message>
        <source>Suggest a policy from sessions</source>
        <translation>Richtlinie aus Sitzungen vorschlagen</translation>
    </message>
    <message>
        <source>Preset: %1</source>
        <translation>Vorlage: %1</translation>
    </message>
    <message>
        <source>Policy file…</source>
        <translation>Richtliniendatei…</translation>
    </message>
    <message>
        <source>The policy the rules are added to: only what it would ask about is proposed, and its deny rules still decide first</source>
        <translation>Die Richtlinie, zu der die Regeln hinzukommen: Vorgeschlagen wird nur, wonach sie fragen würde, und ihre Verbotsregeln entscheiden weiterhin zuerst</translation>
    </message>
    <message>
        <source>Recorded sessions to learn from: run them with --observe to be asked nothing while they work</source>
        <translation>Aufgezeichnete Sitzungen, aus denen gelernt wird: Mit --observe gestartet, fragen sie während der Arbeit nichts</translation>
    </message>
    <message>
        <source>Rule</source>
        <translation>Regel</translation>
    </message>
    <message>
        <source>Evidence</source>
        <translation>Belege</translation>
    </message>
    <message>
        <source>Remark</source>
        <translation>Anmerkung</translation>
    </message>
    <message>
        <source>Checked rules are saved; double-click one to see its example in the replay</source>
        <translation>Angehakte Regeln werden gespeichert; ein Doppelklick zeigt ihr Beispiel in der Wiedergabe</translation>
    </message>
    <message>
        <source>&amp;Base policy:</source>
        <translation>&amp;Grundrichtlinie:</translation>
    </message>
    <message>
        <source>S&amp;essions:</source>
        <translation>S&amp;itzungen:</translation>
    </message>
    <message>
        <source>Base policy</source>
        <translation>Grundrichtlinie</translation>
    </message>
    <message>
        <source>Policies (*.json);;All files (*)</source>
        <translation>Richtlinien (*.json);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>%1 · %2 · %3</source>
        <translation>%1 · %2 · %3</translation>
    </message>
    <message>
        <source>Cannot suggest: %1</source>
        <translation>Kein Vorschlag möglich: %1</translation>
    </message>
    <message>
        <source>Nothing to propose: the base policy asks about nothing these sessions did.</source>
        <translation>Nichts vorzuschlagen: Die Grundrichtlinie fragt nach nichts, was diese Sitzungen taten.</translation>
    </message>
    <message numerus="yes">
        <source>%n rule(s) proposed</source>
        <translation>
            <numerusform>%n Regel vorgeschlagen</numerusform>
            <numerusform>%n Regeln vorgeschlagen</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>; %n risky, not checked</source>
        <translation>
            <numerusform>; %n riskant, nicht angehakt</numerusform>
            <numerusform>; %n riskant, nicht angehakt</numerusform>
        </translation>
    </message>
    <message>
        <source>Save the suggested policy</source>
        <translation>Vorgeschlagene Richtlinie speichern</translation>
    </message>
    <message>
        <source>Policies (*.json)</source>
        <translation>Richtlinien (*.json)</translation>
    </message>
    <message>
        <source>Saved %1.</source>
        <translation>%1 gespeichert.</translation>
    </message>
    <message>
        <source>risky: it would also allow what a deny rule of the base policy denies</source>
        <translation>riskant: Sie würde auch erlauben, was eine Verbotsregel der Grundrichtlinie verbietet</translation>
    </message>
    <message>
        <source>risky: an interpreter running anything would allow every program</source>
        <translation>riskant: Ein Interpreter, der alles ausführt, würde jedes Programm erlauben</translation>
    </message>
    <message>
        <source>one party&apos;s names on a shared platform (%1)</source>
        <translation>die Namen einer Partei auf einer geteilten Plattform (%1)</translation>
    </message>
    <message>
        <source>risky: %1 sends and fetches whatever it is told (any file could go to this host, any script come from it)</source>
        <translation>riskant: %1 sendet und holt, was immer man ihm sagt (jede Datei könnte zu diesem Host gehen, jedes Skript von dort kommen)</translation>
    </message>
    <message>
        <source>A&amp;pply to session</source>
        <translation>Auf Sitzung &amp;anwenden</translation>
    </message>
    <message>
        <source>Give the running session its own policy with the checked rules, at once (as the Policy tab&apos;s &quot;Apply to this session&quot; does)</source>
        <translation>Gibt der laufenden Sitzung sofort ihre eigene Richtlinie mit den angehakten Regeln (wie „Für diese Sitzung anwenden“ im Tab Richtlinie)</translation>
    </message>
    <message>
        <source>This session&apos;s policy (%1)</source>
        <translation>Richtlinie dieser Sitzung (%1)</translation>
    </message>
    <message>
        <source>A&amp;pply to session %1</source>
        <translation>Auf Sitzung %1 &amp;anwenden</translation>
    </message>
    <message>
        <source>Session %1 took the rules (%2).</source>
        <translation>Sitzung %1 hat die Regeln übernommen (%2).</translation>
    </message>
    <message>
        <source>The session did not take the rules: %1</source>
        <translation>Die Sitzung hat die Regeln nicht übernommen: %1</translation>
    </message>
    <message>
        <source>Sending the rules to session %1…</source>
        <translation>Sende die Regeln an Sitzung %1…</translation>
    </message>
</context>
<context>
    <name>sbui::PortsView</name>
    <message>
        <source>&amp;Expose</source>
        <translation>&amp;Freigeben</translation>
    </message>
    <message>
        <source>&amp;Open in browser</source>
        <translation>Im &amp;Browser öffnen</translation>
    </message>
    <message>
        <source>&amp;Copy URL</source>
        <translation>URL &amp;kopieren</translation>
    </message>
    <message>
        <source>&amp;Stop forwarding</source>
        <translation>Weiterleitung be&amp;enden</translation>
    </message>
    <message>
        <source>Expose &amp;port</source>
        <translation>&amp;Port freigeben</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>Port</translation>
    </message>
    <message>
        <source>Listening on</source>
        <translation>Lauscht auf</translation>
    </message>
    <message>
        <source>Preview</source>
        <translation>Vorschau</translation>
    </message>
    <message>
        <source>Connections</source>
        <translation>Verbindungen</translation>
    </message>
    <message>
        <source>A port inside the sandbox, also one nothing listens on yet</source>
        <translation>Ein Port in der Sandbox, auch einer, auf dem noch nichts lauscht</translation>
    </message>
    <message>
        <source>Forward a free port of this machine&apos;s 127.0.0.1 to it</source>
        <translation>Einen freien Port von 127.0.0.1 dieses Rechners dorthin weiterleiten</translation>
    </message>
    <message>
        <source>Close the preview and its open connections</source>
        <translation>Die Vorschau und ihre offenen Verbindungen schließen</translation>
    </message>
    <message>
        <source>This session&apos;s supervisor forwards no ports.</source>
        <translation>Der Supervisor dieser Sitzung leitet keine Ports weiter.</translation>
    </message>
    <message>
        <source>Ports are those of a running session.</source>
        <translation>Ports gibt es nur bei laufenden Sitzungen.</translation>
    </message>
    <message>
        <source>Looking for servers in the sandbox…</source>
        <translation>Suche nach Servern in der Sandbox…</translation>
    </message>
    <message>
        <source>Port %1 of the sandbox is at %2</source>
        <translation>Port %1 der Sandbox ist unter %2 erreichbar</translation>
    </message>
    <message>
        <source>nothing now</source>
        <translation>derzeit nichts</translation>
    </message>
    <message>
        <source>Exposed by %1</source>
        <translation>Freigegeben von %1</translation>
    </message>
    <message numerus="yes">
        <source>%n open</source>
        <translation>
            <numerusform>%n offen</numerusform>
            <numerusform>%n offen</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 in all</source>
        <translation>%1 insgesamt</translation>
    </message>
    <message numerus="yes">
        <source>%n refused</source>
        <translation>
            <numerusform>%n abgewiesen</numerusform>
            <numerusform>%n abgewiesen</numerusform>
        </translation>
    </message>
    <message>
        <source>not exposed</source>
        <translation>nicht freigegeben</translation>
    </message>
    <message>
        <source>This session shares this machine&apos;s network: its servers are on 127.0.0.1 already, at their own ports.</source>
        <translation>Diese Sitzung teilt das Netzwerk dieses Rechners: Ihre Server sind bereits unter 127.0.0.1 erreichbar, auf ihren eigenen Ports.</translation>
    </message>
    <message>
        <source>Nothing listens in the sandbox. A server started there (npm run dev, python3 -m http.server) shows here.</source>
        <translation>In der Sandbox lauscht nichts. Ein dort gestarteter Server (npm run dev, python3 -m http.server) erscheint hier.</translation>
    </message>
    <message>
        <source>Servers listening inside the sandbox. Expose one to open it on this machine (127.0.0.1 only).</source>
        <translation>Server, die in der Sandbox lauschen. Geben Sie einen frei, um ihn auf diesem Rechner zu öffnen (nur 127.0.0.1).</translation>
    </message>
    <message>
        <source>No browser opened %1: copy the URL instead.</source>
        <translation>Kein Browser hat %1 geöffnet: Kopieren Sie stattdessen die URL.</translation>
    </message>
    <message>
        <source>Copied %1</source>
        <translation>%1 kopiert</translation>
    </message>
</context>
<context>
    <name>sbui::RemoteChangesView</name>
    <message>
        <source>added</source>
        <translation>hinzugefügt</translation>
    </message>
    <message>
        <source>modified</source>
        <translation>geändert</translation>
    </message>
    <message>
        <source>deleted</source>
        <translation>gelöscht</translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation>&amp;Aktualisieren</translation>
    </message>
    <message>
        <source>File</source>
        <translation>Datei</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>Änderung</translation>
    </message>
    <message>
        <source>Ask the host again for the session&apos;s changes</source>
        <translation>Den Host erneut nach den Änderungen der Sitzung fragen</translation>
    </message>
    <message>
        <source>Asking %1 for the changes of session %2…</source>
        <translation>Frage %1 nach den Änderungen der Sitzung %2…</translation>
    </message>
    <message>
        <source>exit status %1</source>
        <translation>Exit-Status %1</translation>
    </message>
    <message>
        <source>The changes could not be read on %1: %2</source>
        <translation>Die Änderungen konnten auf %1 nicht gelesen werden: %2</translation>
    </message>
    <message>
        <source>Session %1 on %2 has changed nothing yet.</source>
        <translation>Sitzung %1 auf %2 hat noch nichts geändert.</translation>
    </message>
    <message>
        <source>Apply all</source>
        <translation>Alle übernehmen</translation>
    </message>
    <message>
        <source>Discard all</source>
        <translation>Alle verwerfen</translation>
    </message>
    <message>
        <source>Write every change of the session into the project on its host</source>
        <translation>Alle Änderungen der Sitzung in das Projekt auf ihrem Host schreiben</translation>
    </message>
    <message>
        <source>Drop every change of the session on its host</source>
        <translation>Alle Änderungen der Sitzung auf ihrem Host verwerfen</translation>
    </message>
    <message>
        <source>Keep the project&apos;s version</source>
        <translation>Fassung des Projekts behalten</translation>
    </message>
    <message>
        <source>Drop the agent&apos;s change; the project&apos;s newer version stays</source>
        <translation>Die Änderung des Agenten verwerfen; die neuere Fassung des Projekts bleibt</translation>
    </message>
    <message>
        <source>Take the agent&apos;s version</source>
        <translation>Fassung des Agenten nehmen</translation>
    </message>
    <message>
        <source>Overwrite the project&apos;s newer version with the agent&apos;s (apply with force)</source>
        <translation>Die neuere Fassung des Projekts mit der des Agenten überschreiben (erzwungenes Übernehmen)</translation>
    </message>
    <message>
        <source>Drop every change of session %1 on its host?</source>
        <translation>Alle Änderungen der Sitzung %1 auf ihrem Host verwerfen?</translation>
    </message>
    <message>
        <source>Applying the changes of session %1 on %2…</source>
        <translation>Die Änderungen der Sitzung %1 werden auf %2 übernommen…</translation>
    </message>
    <message>
        <source>Discarding the changes of session %1 on %2…</source>
        <translation>Die Änderungen der Sitzung %1 werden auf %2 verworfen…</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>Not done on %1: %2</source>
        <translation>Auf %1 nicht ausgeführt: %2</translation>
    </message>
    <message numerus="yes">
        <source>%n change(s) conflict with edits made in the project on %1 since the session started. Which versions should it keep?</source>
        <translation>
            <numerusform>%n Änderung steht im Widerspruch zu Bearbeitungen im Projekt auf %1 seit dem Start der Sitzung. Welche Fassung soll es behalten?</numerusform>
            <numerusform>%n Änderungen stehen im Widerspruch zu Bearbeitungen im Projekt auf %1 seit dem Start der Sitzung. Welche Fassungen soll es behalten?</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) written into the project on %1.</source>
        <translation>
            <numerusform>%n Datei in das Projekt auf %1 geschrieben.</numerusform>
            <numerusform>%n Dateien in das Projekt auf %1 geschrieben.</numerusform>
        </translation>
    </message>
    <message>
        <source>The changes were dropped on %1.</source>
        <translation>Die Änderungen wurden auf %1 verworfen.</translation>
    </message>
    <message>
        <source>Session %1 on %2 has no changes left.</source>
        <translation>Sitzung %1 auf %2 hat keine Änderungen mehr.</translation>
    </message>
    <message numerus="yes">
        <source>%n change(s) of session %1 on %2, read from there: apply or discard them there.</source>
        <translation>
            <numerusform>%n Änderung der Sitzung %1 auf %2, von dort gelesen: dort übernehmen oder verwerfen.</numerusform>
            <numerusform>%n Änderungen der Sitzung %1 auf %2, von dort gelesen: dort übernehmen oder verwerfen.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n change(s) of session %1 on %2, read from there. Apply and discard them once the session ended.</source>
        <translation>
            <numerusform>%n Änderung der Sitzung %1 auf %2, von dort gelesen. Übernehmen und verwerfen, sobald die Sitzung beendet ist.</numerusform>
            <numerusform>%n Änderungen der Sitzung %1 auf %2, von dort gelesen. Übernehmen und verwerfen, sobald die Sitzung beendet ist.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sbui::RemoteHostLink</name>
    <message>
        <source>connecting…</source>
        <translation>verbinde…</translation>
    </message>
    <message>
        <source>connecting again…</source>
        <translation>verbinde erneut…</translation>
    </message>
    <message numerus="yes">
        <source>connected, %n session(s)</source>
        <translation>
            <numerusform>verbunden, %n Sitzung</numerusform>
            <numerusform>verbunden, %n Sitzungen</numerusform>
        </translation>
    </message>
    <message>
        <source>not connected, trying again in %1 s</source>
        <translation>nicht verbunden, neuer Versuch in %1 s</translation>
    </message>
    <message>
        <source>not connected to %1</source>
        <translation>nicht mit %1 verbunden</translation>
    </message>
    <message>
        <source>cannot write %1: %2</source>
        <translation>%1 kann nicht geschrieben werden: %2</translation>
    </message>
</context>
<context>
    <name>sbui::ReplayController</name>
    <message>
        <source>No recording is open.</source>
        <translation>Keine Aufzeichnung geöffnet.</translation>
    </message>
</context>
<context>
    <name>sbui::ReplayScrubber</name>
    <message>
        <source>Replay position</source>
        <translation>Wiedergabeposition</translation>
    </message>
    <message>
        <source>command</source>
        <translation>Befehl</translation>
    </message>
    <message>
        <source>connection</source>
        <translation>Verbindung</translation>
    </message>
    <message>
        <source>approval</source>
        <translation>Freigabe</translation>
    </message>
    <message>
        <source>denied</source>
        <translation>verweigert</translation>
    </message>
    <message>
        <source>event</source>
        <translation>Ereignis</translation>
    </message>
    <message>
        <source>%1  %2: %3</source>
        <translation>%1  %2: %3</translation>
    </message>
    <message numerus="yes">
        <source>… and %n more</source>
        <translation>
            <numerusform>… und %n weiteres</numerusform>
            <numerusform>… und %n weitere</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sbui::ReplayView</name>
    <message>
        <source>Previous event</source>
        <translation>Vorheriges Ereignis</translation>
    </message>
    <message>
        <source>Previous event (Ctrl+Left)</source>
        <translation>Vorheriges Ereignis (Strg+Links)</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>Abspielen</translation>
    </message>
    <message>
        <source>Play (Space)</source>
        <translation>Abspielen (Leertaste)</translation>
    </message>
    <message>
        <source>Next event</source>
        <translation>Nächstes Ereignis</translation>
    </message>
    <message>
        <source>Next event (Ctrl+Right)</source>
        <translation>Nächstes Ereignis (Strg+Rechts)</translation>
    </message>
    <message>
        <source>%1×</source>
        <translation>%1×</translation>
    </message>
    <message>
        <source>Playback speed</source>
        <translation>Wiedergabegeschwindigkeit</translation>
    </message>
    <message>
        <source>Real time</source>
        <translation>Echtzeit</translation>
    </message>
    <message>
        <source>Play pauses as long as they were; otherwise each pause over 2 s plays as 2 s</source>
        <translation>Pausen so lang abspielen, wie sie waren; sonst dauert jede Pause über 2 s nur 2 s</translation>
    </message>
    <message>
        <source>pauses over 2 s shortened</source>
        <translation>Pausen über 2 s gekürzt</translation>
    </message>
    <message>
        <source>Position / length of the recording</source>
        <translation>Position / Länge der Aufzeichnung</translation>
    </message>
    <message>
        <source>Go to (1:30)</source>
        <translation>Gehe zu (1:30)</translation>
    </message>
    <message>
        <source>Jump to a time: 90, 1m30s or 1:30 (Ctrl+G)</source>
        <translation>Zu einer Zeit springen: 90, 1m30s oder 1:30 (Strg+G)</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>Exportieren…</translation>
    </message>
    <message>
        <source>Save the recording as asciicast v2 or JSON Lines</source>
        <translation>Die Aufzeichnung als asciicast v2 oder JSON Lines speichern</translation>
    </message>
    <message>
        <source>Search the terminal text (/)</source>
        <translation>Den Terminaltext durchsuchen (/)</translation>
    </message>
    <message>
        <source>Click a match to go there</source>
        <translation>Klicken Sie auf einen Treffer, um dorthin zu springen</translation>
    </message>
    <message>
        <source>%1 / %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>%1: %2, %3 × %4, %5</source>
        <translation>%1: %2, %3 × %4, %5</translation>
    </message>
    <message>
        <source>No event after %1.</source>
        <translation>Kein Ereignis nach %1.</translation>
    </message>
    <message>
        <source>No event before %1.</source>
        <translation>Kein Ereignis vor %1.</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a time; write 90, 1m30s or 1:30.</source>
        <translation>„%1“ ist keine Zeitangabe; schreiben Sie 90, 1m30s oder 1:30.</translation>
    </message>
    <message>
        <source>The recording ends at %1.</source>
        <translation>Die Aufzeichnung endet bei %1.</translation>
    </message>
    <message>
        <source>%1  %2</source>
        <translation>%1  %2</translation>
    </message>
    <message>
        <source>No terminal text matches &quot;%1&quot;.</source>
        <translation>Kein Terminaltext passt zu „%1“.</translation>
    </message>
    <message numerus="yes">
        <source>Matches for &quot;%1&quot;: %n.</source>
        <translation>
            <numerusform>Treffer für „%1“: %n.</numerusform>
            <numerusform>Treffer für „%1“: %n.</numerusform>
        </translation>
    </message>
    <message>
        <source>Export failed: %1</source>
        <translation>Export fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Exported to %1.</source>
        <translation>Exportiert nach %1.</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>Export</translation>
    </message>
    <message>
        <source>Could not export the recording: %1</source>
        <translation>Die Aufzeichnung konnte nicht exportiert werden: %1</translation>
    </message>
    <message>
        <source>asciicast v2 (*.cast)</source>
        <translation>asciicast v2 (*.cast)</translation>
    </message>
    <message>
        <source>JSON Lines (*.jsonl)</source>
        <translation>JSON Lines (*.jsonl)</translation>
    </message>
    <message>
        <source>Export recording</source>
        <translation>Aufzeichnung exportieren</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Pause</translation>
    </message>
    <message>
        <source>Pause (Space)</source>
        <translation>Pause (Leertaste)</translation>
    </message>
</context>
<context>
    <name>sbui::ResultsView</name>
    <message>
        <source>No code ran in this session&apos;s code interpreter.</source>
        <translation>Im Code-Interpreter dieser Sitzung lief kein Code.</translation>
    </message>
    <message numerus="yes">
        <source>%n execution(s) of code, in the order they ran.</source>
        <translation>
            <numerusform>%n Ausführung von Code.</numerusform>
            <numerusform>%n Ausführungen von Code, in der Reihenfolge, in der sie liefen.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n execution(s) had run at %2 of the replay.</source>
        <translation>
            <numerusform>Bei %2 der Wiedergabe gelaufen: %1 von %n Ausführung.</numerusform>
            <numerusform>Bei %2 der Wiedergabe gelaufen: %1 von %n Ausführungen.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sbui::ResumeBaseline</name>
    <message>
        <source>none</source>
        <translation>kein</translation>
    </message>
    <message>
        <source>filtered</source>
        <translation>gefiltert</translation>
    </message>
    <message>
        <source>host</source>
        <translation>Host</translation>
    </message>
    <message>
        <source>deny</source>
        <translation>verweigern</translation>
    </message>
    <message>
        <source>ask</source>
        <translation>fragen</translation>
    </message>
    <message>
        <source>allow</source>
        <translation>erlauben</translation>
    </message>
    <message>
        <source>network %1 (it ran with %2)</source>
        <translation>Netzwerk %1 (vorher: %2)</translation>
    </message>
    <message>
        <source>other command rules than it ran with</source>
        <translation>andere Befehlsregeln als vorher</translation>
    </message>
    <message>
        <source>other network rules than it ran with</source>
        <translation>andere Netzwerkregeln als vorher</translation>
    </message>
    <message>
        <source>no memory limit (it ran with %1 MB)</source>
        <translation>keine Speichergrenze (vorher: %1 MB)</translation>
    </message>
    <message>
        <source>memory %1 MB (it ran with %2 MB)</source>
        <translation>Speicher %1 MB (vorher: %2 MB)</translation>
    </message>
    <message>
        <source>no process limit (it ran with %1 processes)</source>
        <translation>keine Prozessgrenze (vorher: %1 Prozesse)</translation>
    </message>
    <message>
        <source>%1 processes (it ran with %2 processes)</source>
        <translation>%1 Prozesse (vorher: %2)</translation>
    </message>
    <message>
        <source>no CPU limit (it ran with %1 %)</source>
        <translation>keine CPU-Grenze (vorher: %1 %)</translation>
    </message>
    <message>
        <source>CPU %1 % (it ran with %2 %)</source>
        <translation>CPU %1 % (vorher: %2 %)</translation>
    </message>
    <message>
        <source>no time limit (it ran with %1 s)</source>
        <translation>kein Zeitlimit (vorher: %1 s)</translation>
    </message>
    <message>
        <source>time limit %1 s (it ran with %2 s)</source>
        <translation>Zeitlimit %1 s (vorher: %2 s)</translation>
    </message>
    <message>
        <source>unanswered requests allowed (it ran denying them)</source>
        <translation>unbeantwortete Anfragen erlaubt (vorher verweigert)</translation>
    </message>
    <message>
        <source>other commands: %1 (it ran with %2)</source>
        <translation>andere Befehle: %1 (vorher: %2)</translation>
    </message>
    <message>
        <source>other hosts: %1 (it ran with %2)</source>
        <translation>andere Hosts: %1 (vorher: %2)</translation>
    </message>
</context>
<context>
    <name>sbui::RuleListEditor</name>
    <message>
        <source>&amp;Add rule</source>
        <translation>Regel &amp;hinzufügen</translation>
    </message>
    <message>
        <source>&amp;Delete</source>
        <translation>&amp;Löschen</translation>
    </message>
    <message>
        <source>Add a rule after the selected one</source>
        <translation>Eine Regel nach der ausgewählten hinzufügen</translation>
    </message>
    <message>
        <source>Delete the selected rule (Del)</source>
        <translation>Die ausgewählte Regel löschen (Entf)</translation>
    </message>
    <message>
        <source>Move the rule up: it is checked earlier (Ctrl+Up)</source>
        <translation>Die Regel nach oben verschieben: Sie wird früher geprüft (Strg+Hoch)</translation>
    </message>
    <message>
        <source>Move up</source>
        <translation>Nach oben</translation>
    </message>
    <message>
        <source>Move the rule down: it is checked later (Ctrl+Down)</source>
        <translation>Die Regel nach unten verschieben: Sie wird später geprüft (Strg+Runter)</translation>
    </message>
    <message>
        <source>Move down</source>
        <translation>Nach unten</translation>
    </message>
    <message>
        <source>Rule %1: %2</source>
        <translation>Regel %1: %2</translation>
    </message>
</context>
<context>
    <name>sbui::SessionConnection</name>
    <message>
        <source>the session has ended</source>
        <translation>die Sitzung ist beendet</translation>
    </message>
</context>
<context>
    <name>sbui::SessionHub</name>
    <message>
        <source>%1 is not among the hosts</source>
        <translation>%1 ist keiner der Hosts</translation>
    </message>
</context>
<context>
    <name>sbui::SessionListModel</name>
    <message numerus="yes">
        <source>running, %n approval(s) waiting</source>
        <translation>
            <numerusform>läuft, %n Freigabe wartet</numerusform>
            <numerusform>läuft, %n Freigaben warten</numerusform>
        </translation>
    </message>
    <message>
        <source>running</source>
        <translation>läuft</translation>
    </message>
    <message>
        <source>interrupted (its supervisor died)</source>
        <translation>unterbrochen (ihr Supervisor ist abgestürzt)</translation>
    </message>
    <message>
        <source>ended, exit %1</source>
        <translation>beendet, Exit-Status %1</translation>
    </message>
    <message>
        <source>ended</source>
        <translation>beendet</translation>
    </message>
    <message>
        <source>Session</source>
        <translation>Sitzung</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>Gestartet</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>Dauer</translation>
    </message>
    <message>
        <source>Session %1
%2
in %3
%4</source>
        <translation>Sitzung %1
%2
in %3
%4</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>Ordner</translation>
    </message>
    <message>
        <source>stopped, not recorded, with changes: Resume goes on with them</source>
        <translation>gestoppt, nicht aufgezeichnet, mit Änderungen: Fortsetzen macht damit weiter</translation>
    </message>
    <message>
        <source>fork of %1, not run yet: Resume goes on with its changes</source>
        <translation>abgezweigt von %1, noch nicht gelaufen: Fortsetzen macht mit ihren Änderungen weiter</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>On %1
%2</source>
        <translation>Auf %1
%2</translation>
    </message>
</context>
<context>
    <name>sbui::Settings</name>
    <message>
        <source>Cannot write the settings file %1.</source>
        <translation>Die Einstellungsdatei %1 kann nicht geschrieben werden.</translation>
    </message>
</context>
<context>
    <name>sbui::SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation>Einstellungen</translation>
    </message>
    <message>
        <source>Terminal</source>
        <translation>Terminal</translation>
    </message>
    <message>
        <source> pt</source>
        <translation> pt</translation>
    </message>
    <message>
        <source>&amp;Font:</source>
        <translation>S&amp;chrift:</translation>
    </message>
    <message>
        <source> lines</source>
        <translation> Zeilen</translation>
    </message>
    <message>
        <source>none</source>
        <translation>keiner</translation>
    </message>
    <message>
        <source>&amp;Scrollback:</source>
        <translation>&amp;Verlauf:</translation>
    </message>
    <message>
        <source>New sessions</source>
        <translation>Neue Sitzungen</translation>
    </message>
    <message>
        <source>Default &amp;policy preset:</source>
        <translation>Standard-&amp;Richtlinienvorlage:</translation>
    </message>
    <message>
        <source> s</source>
        <translation> s</translation>
    </message>
    <message>
        <source>as the policy says</source>
        <translation>wie in der Richtlinie</translation>
    </message>
    <message>
        <source>&amp;Approval timeout:</source>
        <translation>Zeitlimit für &amp;Freigaben:</translation>
    </message>
    <message>
        <source>How long a request waits for your answer before the policy&apos;s timeout action applies.</source>
        <translation>Wie lange eine Anfrage auf Ihre Antwort wartet, bevor die Zeitablauf-Aktion der Richtlinie greift.</translation>
    </message>
    <message>
        <source>Notifications</source>
        <translation>Benachrichtigungen</translation>
    </message>
    <message>
        <source>&amp;Desktop notification when an approval waits</source>
        <translation>&amp;Desktop-Benachrichtigung, wenn eine Freigabe wartet</translation>
    </message>
    <message>
        <source>Only while the window is not active. The window title counts waiting approvals either way.</source>
        <translation>Nur solange das Fenster nicht aktiv ist. Der Fenstertitel zählt wartende Freigaben in jedem Fall.</translation>
    </message>
    <message>
        <source>Recordings</source>
        <translation>Aufzeichnungen</translation>
    </message>
    <message>
        <source> days</source>
        <translation> Tage</translation>
    </message>
    <message>
        <source>no limit</source>
        <translation>unbegrenzt</translation>
    </message>
    <message>
        <source>&amp;Keep for:</source>
        <translation>&amp;Aufbewahren für:</translation>
    </message>
    <message>
        <source> MB</source>
        <translation> MB</translation>
    </message>
    <message>
        <source>&amp;Up to a total of:</source>
        <translation>&amp;Bis zu insgesamt:</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>Sprache</translation>
    </message>
    <message>
        <source>System (%1)</source>
        <translation>System (%1)</translation>
    </message>
    <message>
        <source>&amp;Language:</source>
        <translation>&amp;Sprache:</translation>
    </message>
    <message>
        <source>The settings were not saved</source>
        <translation>Die Einstellungen wurden nicht gespeichert</translation>
    </message>
    <message>
        <source>In use:</source>
        <translation>Belegt:</translation>
    </message>
    <message>
        <source>Deleted when applied:</source>
        <translation>Beim Anwenden gelöscht:</translation>
    </message>
    <message>
        <source>Takes effect at the next start.</source>
        <translation>Gilt ab dem nächsten Start.</translation>
    </message>
    <message>
        <source>unreadable</source>
        <translation>nicht lesbar</translation>
    </message>
    <message numerus="yes">
        <source>%n recording(s), %1, oldest first</source>
        <translation>
            <numerusform>%n Aufzeichnung, %1</numerusform>
            <numerusform>%n Aufzeichnungen, %1, die ältesten zuerst</numerusform>
        </translation>
    </message>
    <message>
        <source>nothing</source>
        <translation>nichts</translation>
    </message>
    <message>
        <source>&amp;Apply</source>
        <comment>store the settings</comment>
        <translation>&amp;Anwenden</translation>
    </message>
    <message>
        <source>The window speaks %1 now: --lang or SANDBENCH_LANG chose it for this start.</source>
        <translation>Das Fenster spricht jetzt %1: --lang oder SANDBENCH_LANG hat es für diesen Start gewählt.</translation>
    </message>
    <message>
        <source>%1 in recordings, %2 on disk</source>
        <translation>%1 in Aufzeichnungen, %2 auf der Festplatte</translation>
    </message>
</context>
<context>
    <name>sbui::SnapshotsDialog</name>
    <message>
        <source>&amp;Take</source>
        <translation>Auf&amp;nehmen</translation>
    </message>
    <message>
        <source>&amp;Restore</source>
        <translation>&amp;Wiederherstellen</translation>
    </message>
    <message>
        <source>&amp;Fork</source>
        <translation>Ab&amp;zweigen</translation>
    </message>
    <message>
        <source>Snapshots of %1</source>
        <translation>Snapshots von %1</translation>
    </message>
    <message>
        <source>A snapshot keeps a copy of the session&apos;s changes (only the changed files). The session runs: its sandbox is frozen while they are copied; stop it to restore or fork.</source>
        <translation>Ein Snapshot bewahrt eine Kopie der Änderungen der Sitzung auf (nur die geänderten Dateien). Die Sitzung läuft: Ihre Sandbox wird eingefroren, während sie kopiert werden; stoppen Sie sie, um wiederherzustellen oder abzuzweigen.</translation>
    </message>
    <message>
        <source>A snapshot keeps a copy of the session&apos;s changes (only the changed files), to restore them later or fork a new session from them.</source>
        <translation>Ein Snapshot bewahrt eine Kopie der Änderungen der Sitzung auf (nur die geänderten Dateien), um sie später wiederherzustellen oder eine neue Sitzung davon abzuzweigen.</translation>
    </message>
    <message>
        <source>Snapshot</source>
        <translation>Snapshot</translation>
    </message>
    <message>
        <source>Taken</source>
        <translation>Aufgenommen</translation>
    </message>
    <message>
        <source>Changes copied</source>
        <translation>Kopierte Änderungen</translation>
    </message>
    <message>
        <source>snapshot-N</source>
        <translation>snapshot-N</translation>
    </message>
    <message>
        <source>Letters, digits, &apos;.&apos;, &apos;_&apos; and &apos;-&apos;</source>
        <translation>Buchstaben, Ziffern, „.“, „_“ und „-“</translation>
    </message>
    <message>
        <source>new session id</source>
        <translation>ID der neuen Sitzung</translation>
    </message>
    <message>
        <source>Make the session&apos;s changes those of the snapshot again</source>
        <translation>Die Änderungen der Sitzung wieder auf die des Snapshots setzen</translation>
    </message>
    <message>
        <source>A new session with a copy of the snapshot&apos;s changes, to go on with separately (Session → Resume…)</source>
        <translation>Eine neue Sitzung mit einer Kopie der Änderungen des Snapshots, um getrennt weiterzumachen (Sitzung → Fortsetzen…)</translation>
    </message>
    <message numerus="yes">
        <source>%n entries</source>
        <translation>
            <numerusform>%n Eintrag</numerusform>
            <numerusform>%n Einträge</numerusform>
        </translation>
    </message>
    <message>
        <source>Took %1: the sandbox was frozen %2 ms.</source>
        <translation>%1 aufgenommen: Die Sandbox war %2 ms eingefroren.</translation>
    </message>
    <message>
        <source>Took %1.</source>
        <translation>%1 aufgenommen.</translation>
    </message>
    <message>
        <source>Restore %1?</source>
        <translation>%1 wiederherstellen?</translation>
    </message>
    <message>
        <source>The changes of session %1 become those of snapshot %2 again; what it changed since is gone (take a snapshot first to keep it).</source>
        <translation>Die Änderungen der Sitzung %1 werden wieder die des Snapshots %2; was sie seitdem geändert hat, geht verloren (nehmen Sie zuerst einen Snapshot auf, um es zu behalten).</translation>
    </message>
    <message>
        <source>Restore</source>
        <translation>Wiederherstellen</translation>
    </message>
    <message>
        <source>Restored %1.</source>
        <translation>%1 wiederhergestellt.</translation>
    </message>
    <message>
        <source>Forked %1 as %2: resume it to go on.</source>
        <translation>%1 als %2 abgezweigt: Setzen Sie sie fort, um weiterzumachen.</translation>
    </message>
    <message>
        <source>&amp;Fork its changes</source>
        <translation>Ihre Änderungen ab&amp;zweigen</translation>
    </message>
    <message>
        <source>There is a snapshot %1 already: choose another name.</source>
        <translation>Es gibt schon einen Snapshot %1: Wählen Sie einen anderen Namen.</translation>
    </message>
    <message>
        <source>A snapshot&apos;s name is 1 to 64 letters, digits, &apos;.&apos;, &apos;_&apos; or &apos;-&apos;, not starting with &apos;.&apos;.</source>
        <translation>Der Name eines Snapshots besteht aus 1 bis 64 Buchstaben, Ziffern, &apos;.&apos;, &apos;_&apos; oder &apos;-&apos; und beginnt nicht mit &apos;.&apos;.</translation>
    </message>
    <message>
        <source>no changes</source>
        <translation>keine Änderungen</translation>
    </message>
    <message numerus="yes">
        <source>%n change(s)</source>
        <translation>
            <numerusform>%n Änderung</numerusform>
            <numerusform>%n Änderungen</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sbui::TerminalSearchBar</name>
    <message>
        <source>Find in terminal</source>
        <translation>Im Terminal suchen</translation>
    </message>
    <message>
        <source>Find older (Enter)</source>
        <translation>Ältere suchen (Eingabetaste)</translation>
    </message>
    <message>
        <source>Find older</source>
        <translation>Ältere suchen</translation>
    </message>
    <message>
        <source>Find newer (Shift+Enter)</source>
        <translation>Neuere suchen (Umschalt+Eingabetaste)</translation>
    </message>
    <message>
        <source>Find newer</source>
        <translation>Neuere suchen</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>Schließen</translation>
    </message>
    <message>
        <source>Close the find bar (Escape)</source>
        <translation>Die Suchleiste schließen (Esc)</translation>
    </message>
    <message>
        <source>Not found</source>
        <translation>Nicht gefunden</translation>
    </message>
</context>
<context>
    <name>sbui::TerminalWidget</name>
    <message>
        <source>&amp;Copy</source>
        <translation>&amp;Kopieren</translation>
    </message>
    <message>
        <source>&amp;Paste</source>
        <translation>&amp;Einfügen</translation>
    </message>
    <message>
        <source>Select &amp;All</source>
        <translation>&amp;Alles auswählen</translation>
    </message>
    <message>
        <source>&amp;Find…</source>
        <translation>&amp;Suchen…</translation>
    </message>
</context>
<context>
    <name>sbui::TokenChart</name>
    <message>
        <source>Tokens over time</source>
        <translation>Tokens im Zeitverlauf</translation>
    </message>
    <message>
        <source>No model requests yet</source>
        <translation>Noch keine Modellanfragen</translation>
    </message>
    <message>
        <source>input, cached included</source>
        <translation>Eingabe, mit Cache</translation>
    </message>
    <message>
        <source>output</source>
        <translation>Ausgabe</translation>
    </message>
    <message>
        <source>%1 tokens in and %2 out so far</source>
        <translation>Bisher %1 Tokens hinein und %2 heraus</translation>
    </message>
</context>
<context>
    <name>sbui::WelcomeView</name>
    <message>
        <source>Isolation (namespaces)</source>
        <translation>Isolation (Namespaces)</translation>
    </message>
    <message>
        <source>Reviewable workspace (overlayfs)</source>
        <translation>Prüfbarer Arbeitsbereich (overlayfs)</translation>
    </message>
    <message>
        <source>System call filter (seccomp)</source>
        <translation>Systemaufruf-Filter (seccomp)</translation>
    </message>
    <message>
        <source>Command approval (seccomp notification)</source>
        <translation>Befehlsfreigabe (seccomp-Benachrichtigung)</translation>
    </message>
    <message>
        <source>Write confinement (Landlock)</source>
        <translation>Schreibbeschränkung (Landlock)</translation>
    </message>
    <message>
        <source>Resource limits (cgroups)</source>
        <translation>Ressourcengrenzen (cgroups)</translation>
    </message>
    <message>
        <source>Try the &amp;demo</source>
        <translation>&amp;Demo ausprobieren</translation>
    </message>
    <message>
        <source>&amp;New session…</source>
        <translation>&amp;Neue Sitzung…</translation>
    </message>
    <message>
        <source>Welcome to Sandbench</source>
        <translation>Willkommen bei Sandbench</translation>
    </message>
    <message>
        <source>Supervise AI coding agents in a local sandbox.</source>
        <translation>KI-Programmieragenten in einer lokalen Sandbox beaufsichtigen.</translation>
    </message>
    <message>
        <source>An agent started here works on your project inside a sandbox: it sees a copy of the folder, an empty home and no credentials. What it writes waits for your review. Commands and connections your policy leaves open are put to you while it waits, and every session is recorded for replay.</source>
        <translation>Ein hier gestarteter Agent arbeitet in einer Sandbox an Ihrem Projekt: Er sieht eine Kopie des Ordners, ein leeres Home-Verzeichnis und keine Zugangsdaten. Was er schreibt, wartet auf Ihre Prüfung. Befehle und Verbindungen, die Ihre Richtlinie offenlässt, werden Ihnen vorgelegt, während er wartet, und jede Sitzung wird zur Wiedergabe aufgezeichnet.</translation>
    </message>
    <message>
        <source>Start the built-in demo: a scripted agent in a sandbox over a copy of a small project</source>
        <translation>Die eingebaute Demo starten: ein geskripteter Agent in einer Sandbox auf einer Kopie eines kleinen Projekts</translation>
    </message>
    <message>
        <source>Choose a project folder, a policy and the agent to run</source>
        <translation>Einen Projektordner, eine Richtlinie und den auszuführenden Agenten wählen</translation>
    </message>
    <message>
        <source>In the demo a scripted agent fixes a bug, runs the tests, reaches one allowed and one denied server, and tries a dangerous command: you answer it in the approval panel, then review its changes.</source>
        <translation>In der Demo behebt ein geskripteter Agent einen Fehler, führt die Tests aus, erreicht einen erlaubten und einen verweigerten Server und versucht einen gefährlichen Befehl: Sie beantworten ihn im Bereich „Freigaben“ und prüfen dann seine Änderungen.</translation>
    </message>
    <message>
        <source>This machine</source>
        <translation>Dieser Rechner</translation>
    </message>
    <message>
        <source>Check &amp;again</source>
        <translation>&amp;Erneut prüfen</translation>
    </message>
    <message>
        <source>Run the checks again, e.g. after applying a fix</source>
        <translation>Die Prüfungen erneut ausführen, z. B. nach dem Anwenden einer Korrektur</translation>
    </message>
    <message>
        <source>Sandboxes cannot run here until the missing items below are fixed: Sandbench refuses to start a weaker sandbox.</source>
        <translation>Sandboxen können hier erst laufen, wenn die unten fehlenden Punkte behoben sind: Sandbench startet keine schwächere Sandbox.</translation>
    </message>
    <message>
        <source>Sandboxes can run on this machine, with the limits below.</source>
        <translation>Sandboxen können auf diesem Rechner laufen, mit den unten genannten Einschränkungen.</translation>
    </message>
    <message>
        <source>Sandboxes can run on this machine, with every protection.</source>
        <translation>Sandboxen können auf diesem Rechner laufen, mit allen Schutzmaßnahmen.</translation>
    </message>
    <message>
        <source>ok</source>
        <translation>ok</translation>
    </message>
    <message>
        <source>missing</source>
        <translation>fehlt</translation>
    </message>
    <message>
        <source>limited</source>
        <translation>eingeschränkt</translation>
    </message>
    <message>
        <source>Fix: %1</source>
        <translation>Korrektur: %1</translation>
    </message>
</context>
<context>
    <name>sbui::WorkspaceModel</name>
    <message numerus="yes">
        <source>%n change(s) inside</source>
        <translation>
            <numerusform>%n Änderung darin</numerusform>
            <numerusform>%n Änderungen darin</numerusform>
        </translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>Änderung</translation>
    </message>
    <message>
        <source>Runs later, outside the sandbox (%1). Apply all holds it back; apply it on its own to confirm it.</source>
        <translation>Wird später außerhalb der Sandbox ausgeführt (%1). „Alle übernehmen“ hält sie zurück; übernehmen Sie sie einzeln, um sie zu bestätigen.</translation>
    </message>
    <message>
        <source>%1, runs later</source>
        <translation>%1, läuft später</translation>
    </message>
    <message>
        <source>Runs later, outside the sandbox: %1</source>
        <translation>Wird später außerhalb der Sandbox ausgeführt: %1</translation>
    </message>
</context>
</TS>
