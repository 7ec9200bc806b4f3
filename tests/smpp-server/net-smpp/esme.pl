#!/usr/bin/perl
# A customer's ESME on Perl's Net::SMPP (Debian package libnet-smpp-perl), driven by the test
# suite: one JSON command a line on stdin, one JSON event a line on stdout. The gateway's own side
# uses the npm `smpp` package; this client shares no code with it, so a misreading of SMPP 3.4
# common to both ends cannot hide.
#
# Commands (each with an "id" the answer repeats):
#   {"op":"bind","type":"transceiver|transmitter|receiver","host","port","system_id","password"}
#   {"op":"submit_sm", submit_sm fields..., "short_message":"<hex>", "tlvs":{"<name or tag>":"<hex>"}}
#   {"op":"enquire_link"}  {"op":"unbind"}  {"op":"deliver_sm_resp","seq":N,"status":S}
#   {"op":"set","answer_deliver_sm":0|1,"answer_enquire_link":0|1}  {"op":"close"}
# Events:
#   {"reply":id,"seq":N} once a request is written (async mode: its response comes as a "pdu")
#   {"reply":id,"error":"..."}
#   {"event":"pdu","command","command_id","status","sequence","fields",
#    "short_message":"<hex>","tlvs":{"<tag>":"<hex>"}}
#   {"event":"closed","reason":"..."}
# Requests from the server are answered as a platform answers them: enquire_link and deliver_sm
# with ESME_ROK (unless told otherwise), unbind with unbind_resp and a close.
use strict;
use warnings;
use IO::Select;
use JSON::PP;
use Net::SMPP;
use Socket qw(SOL_SOCKET SO_RCVTIMEO);

# Every read from the gateway is bounded: a PDU that does not arrive whole in this time ends the
# session instead of hanging the test.
my $READ_TIMEOUT_SECONDS = 10;
my $CONNECT_TIMEOUT_SECONDS = 5;

$| = 1;
my $json = JSON::PP->new->canonical;
my %tlv_tag_by_name = map { Net::SMPP::param_tab->{$_}->{name} => $_ } keys %{ Net::SMPP::param_tab() };
my %settings = (answer_deliver_sm => 1, answer_enquire_link => 1);
my $smpp;
my $stdin_buffer = '';

sub emit { print $json->encode($_[0]), "\n"; }

sub closed {
    my ($reason) = @_;
    return unless $smpp;
    close $smpp;
    $smpp = undef;
    emit({ event => 'closed', reason => $reason });
}

# A PDU as Net::SMPP decoded it: its mandatory fields by name, short_message and TLVs in hex.
sub describe_pdu {
    my ($pdu) = @_;
    my %tlvs;
    my %tlv_names;
    for my $key (keys %$pdu) {
        next unless $key =~ /^\d+$/;
        $tlvs{$key} = unpack 'H*', $pdu->{$key};
        my $entry = Net::SMPP::param_tab->{$key};
        $tlv_names{ $entry->{name} } = 1 if $entry;
    }
    my %fields;
    for my $key (keys %$pdu) {
        next if $key =~ /^(?:\d+|data|known_pdu|cmd|status|seq|reserved|short_message)$/;
        next if $tlv_names{$key};
        $fields{$key} = $pdu->{$key};
    }
    my $name = Net::SMPP::pdu_tab->{ $pdu->{cmd} };
    return {
        event         => 'pdu',
        command       => $name ? $name->{cmd} : sprintf('0x%08x', $pdu->{cmd}),
        command_id    => $pdu->{cmd},
        status        => $pdu->{status},
        sequence      => $pdu->{seq},
        fields        => \%fields,
        short_message => unpack('H*', defined $pdu->{short_message} ? $pdu->{short_message} : ''),
        tlvs          => \%tlvs,
    };
}

sub on_pdu {
    my ($pdu) = @_;
    emit(describe_pdu($pdu));
    my $cmd = $pdu->{cmd};
    if ($cmd == Net::SMPP::CMD_enquire_link) {
        $smpp->enquire_link_resp(seq => $pdu->{seq}) if $settings{answer_enquire_link};
    } elsif ($cmd == Net::SMPP::CMD_deliver_sm) {
        $smpp->deliver_sm_resp(message_id => '', seq => $pdu->{seq}) if $settings{answer_deliver_sm};
    } elsif ($cmd == Net::SMPP::CMD_unbind) {
        $smpp->unbind_resp(seq => $pdu->{seq});
        closed('unbound by the server');
    }
}

sub need_session { die "not connected\n" unless $smpp; }

sub from_hex {
    my ($hex) = @_;
    die "not hex: $hex\n" unless $hex =~ /^(?:[0-9a-fA-F]{2})*$/;
    return pack 'H*', $hex;
}

my %ops = (
    bind => sub {
        my ($c) = @_;
        my $kind = $c->{type};
        die "bind type must be transmitter, receiver or transceiver\n"
          unless $kind && $kind =~ /^(?:transmitter|receiver|transceiver)$/;
        if (!$smpp) {
            $smpp = Net::SMPP->new_connect($c->{host}, port => $c->{port}, async => 1,
                timeout => $CONNECT_TIMEOUT_SECONDS)
              or die "cannot connect to $c->{host}:$c->{port}: $!\n";
            setsockopt($smpp, SOL_SOCKET, SO_RCVTIMEO, pack('l!l!', $READ_TIMEOUT_SECONDS, 0))
              or die "cannot set the read timeout: $!\n";
        }
        my $method = "bind_$kind";
        return $smpp->$method(system_id => $c->{system_id}, password => $c->{password});
    },
    submit_sm => sub {
        my ($c) = @_;
        need_session();
        my @mandatory;
        for my $field (qw(service_type source_addr_ton source_addr_npi source_addr dest_addr_ton
            dest_addr_npi destination_addr esm_class protocol_id priority_flag
            schedule_delivery_time validity_period registered_delivery replace_if_present_flag
            data_coding sm_default_msg_id)) {
            push @mandatory, $field => $c->{$field} if defined $c->{$field};
        }
        push @mandatory, short_message => from_hex($c->{short_message} // '');
        # Net::SMPP packs TLVs given by name as raw bytes (by number it would pack an integer).
        my @optional;
        for my $key (sort keys %{ $c->{tlvs} // {} }) {
            my $name = $key;
            if ($key =~ /^(?:0x[0-9a-fA-F]+|\d+)$/) {
                my $entry = Net::SMPP::param_tab->{ $key =~ /^0x/ ? hex($key) : $key };
                die "no TLV name for tag $key in Net::SMPP\n" unless $entry;
                $name = $entry->{name};
            }
            die "unknown TLV $key\n" unless $tlv_tag_by_name{$name};
            push @optional, $name => from_hex($c->{tlvs}{$key});
        }
        return $smpp->submit_sm(@mandatory, @optional);
    },
    enquire_link => sub { need_session(); return $smpp->enquire_link(); },
    unbind => sub { need_session(); return $smpp->unbind(); },
    deliver_sm_resp => sub {
        my ($c) = @_;
        need_session();
        return $smpp->deliver_sm_resp(message_id => '', seq => $c->{seq}, status => $c->{status} // 0);
    },
    set => sub {
        my ($c) = @_;
        for my $key (keys %settings) { $settings{$key} = $c->{$key} ? 1 : 0 if exists $c->{$key}; }
        return 0;
    },
    close => sub { closed('closed by the client'); return 0; },
);

sub on_command {
    my ($line) = @_;
    my $c = eval { $json->decode($line) };
    if (!$c || ref $c ne 'HASH') {
        emit({ reply => undef, error => "not a JSON object: $line" });
        return;
    }
    my $op = $ops{ $c->{op} // '' };
    my $seq = $op ? eval { $op->($c) } : undef;
    if (!$op) {
        emit({ reply => $c->{id}, error => 'unknown op ' . ($c->{op} // '') });
    } elsif ($@ || !defined $seq) {
        my $error = $@ || 'the write failed';
        chomp $error;
        emit({ reply => $c->{id}, error => $error });
    } else {
        emit({ reply => $c->{id}, seq => $seq });
    }
}

# One loop over stdin and the session; the select timeout keeps it responsive when both are quiet.
while (1) {
    my $select = IO::Select->new(\*STDIN);
    $select->add($smpp) if $smpp;
    for my $ready ($select->can_read(1)) {
        if ($ready == \*STDIN) {
            my $n = sysread STDIN, $stdin_buffer, 65536, length $stdin_buffer;
            if (!$n) {
                closed('stdin closed');
                exit 0;
            }
            while ($stdin_buffer =~ s/^([^\n]*)\n//) {
                on_command($1) if length $1;
            }
        } elsif ($smpp) {
            my $pdu = $smpp->read_pdu();
            if ($pdu) {
                on_pdu($pdu);
            } else {
                closed(${*$smpp}{smpperror} // 'read failed');
            }
        }
    }
}
