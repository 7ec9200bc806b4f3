import { Checkbox, Group, NumberInput, Select, Text, Textarea, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { MoRouteView, MtRouteView } from '@smsgw/contracts';
import { api } from '../api';
import { FormModal } from '../parts';

/** Words separated by commas, spaces or lines, as a list; undefined when there are none. */
const words = (text: string): string[] | undefined => {
  const list = text.split(/[\s,]+/).filter((w) => w !== '');
  return list.length === 0 ? undefined : list;
};
const listText = (value: unknown): string => (Array.isArray(value) ? value.join(', ') : '');

/** The filters a route is edited with here; the others it has (a time window) are kept as they are. */
const EDITED_FILTERS = ['prefixes', 'pattern', 'accounts', 'senders', 'tags', 'any_account'];

/** Adds an MT route, or replaces one (PUT replaces the whole route). */
export function MtRouteForm({
  editing,
  onClose,
}: {
  editing: MtRouteView | 'new' | undefined;
  onClose: () => void;
}) {
  const client = useQueryClient();
  const route = editing === 'new' ? undefined : editing;
  const [name, setName] = useState('');
  const [position, setPosition] = useState<number | string>(100);
  const [kind, setKind] = useState<string>('static');
  const [connectors, setConnectors] = useState('');
  const [prefixes, setPrefixes] = useState('');
  const [pattern, setPattern] = useState('');
  const [accounts, setAccounts] = useState('');
  const [senders, setSenders] = useState('');
  const [tags, setTags] = useState('');
  const [anyAccount, setAnyAccount] = useState(false);
  const [rerouteOn, setRerouteOn] = useState('');
  const [price, setPrice] = useState('');
  useEffect(() => {
    if (editing === undefined) return;
    const f = route?.filters ?? {};
    setName(route?.name ?? '');
    setPosition(route?.position ?? 100);
    setKind(route?.kind ?? 'static');
    setConnectors(
      route?.connectors
        .map((c) => (c.weight === undefined ? c.connector : `${c.connector} ${c.weight}`))
        .join('\n') ?? 'default',
    );
    setPrefixes(listText(f['prefixes']));
    setPattern(typeof f['pattern'] === 'string' ? f['pattern'] : '');
    setAccounts(listText(f['accounts']));
    setSenders(listText(f['senders']));
    setTags(listText(f['tags']));
    setAnyAccount(f['any_account'] === true);
    setRerouteOn(route?.reroute_on.join(', ') ?? '');
    setPrice(route?.price ?? '');
  }, [editing, route]);
  const kept = Object.fromEntries(
    Object.entries(route?.filters ?? {}).filter(([k]) => !EDITED_FILTERS.includes(k)),
  );
  const save = useMutation({
    mutationFn: () =>
      api<{ data: MtRouteView }>('PUT', `/admin/v1/routes/${encodeURIComponent(name)}`, {
        position: Number(position),
        kind,
        connectors: connectors
          .split('\n')
          .map((line) => line.trim().split(/\s+/))
          .filter(([c]) => c !== undefined && c !== '')
          .map(([connector, weight]) => ({
            connector,
            ...(weight !== undefined && { weight: Number(weight) }),
          })),
        filters: {
          ...kept,
          ...(words(prefixes) && { prefixes: words(prefixes) }),
          ...(pattern.trim() !== '' && { pattern: pattern.trim() }),
          ...(words(accounts) && { accounts: words(accounts) }),
          ...(words(senders) && { senders: words(senders) }),
          ...(words(tags) && { tags: words(tags) }),
          ...(anyAccount && { any_account: true }),
        },
        reroute_on: words(rerouteOn) ?? [],
        ...(price.trim() !== '' && { price: price.trim() }),
      }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['routes'] });
      onClose();
    },
  });
  return (
    <FormModal
      opened={editing !== undefined}
      title={route ? `Edit MT route ${route.name}` : 'Add an MT route'}
      save={save}
      submit="Save the route"
      onClose={onClose}
    >
      {!route && (
        <TextInput
          label="Name"
          description="Letters, digits, . _ -"
          required
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
        />
      )}
      <Group grow>
        <NumberInput label="Position" required min={1} value={position} onChange={setPosition} />
        <Select
          label="Kind"
          data={[
            { value: 'static', label: 'static: one connector' },
            { value: 'failover', label: 'failover: in order' },
            { value: 'weighted', label: 'weighted: shared by weight' },
          ]}
          value={kind}
          allowDeselect={false}
          onChange={(v) => v !== null && setKind(v)}
        />
      </Group>
      <Textarea
        label="Connectors"
        description="One a line; a weighted route gives each a weight after its name (smsc-a 70)"
        required
        autosize
        minRows={2}
        value={connectors}
        onChange={(e) => setConnectors(e.currentTarget.value)}
      />
      <TextInput
        label="Destination prefixes"
        description="Digits, separated by commas; empty: any destination"
        value={prefixes}
        onChange={(e) => setPrefixes(e.currentTarget.value)}
      />
      <TextInput
        label="Destination pattern"
        description="A regular expression (RE2) the whole number must match; empty: none"
        value={pattern}
        onChange={(e) => setPattern(e.currentTarget.value)}
      />
      <Group grow>
        <TextInput
          label="Accounts"
          description="Empty: every account"
          value={accounts}
          onChange={(e) => setAccounts(e.currentTarget.value)}
        />
        <TextInput
          label="Senders"
          description="Empty: any sender"
          value={senders}
          onChange={(e) => setSenders(e.currentTarget.value)}
        />
      </Group>
      <Group grow align="end">
        <TextInput
          label="Tags"
          description="The message carries one of them"
          value={tags}
          onChange={(e) => setTags(e.currentTarget.value)}
        />
        <Checkbox
          label="Any account giving a tag"
          checked={anyAccount}
          onChange={(e) => setAnyAccount(e.currentTarget.checked)}
        />
      </Group>
      <TextInput
        label="Next connector on"
        description="SMPP statuses that pass the message on, such as ESME_RTHROTTLED"
        value={rerouteOn}
        onChange={(e) => setRerouteOn(e.currentTarget.value)}
      />
      <TextInput
        label="Price per part"
        description="Empty: the account's rate (giving or changing a price needs the credit scope)"
        value={price}
        onChange={(e) => setPrice(e.currentTarget.value)}
      />
      {Object.keys(kept).length > 0 && (
        <Text size="sm">Kept as they are: {JSON.stringify(kept)}</Text>
      )}
    </FormModal>
  );
}

/** Adds an MO route, or replaces one. */
export function MoRouteForm({
  editing,
  onClose,
}: {
  editing: MoRouteView | 'new' | undefined;
  onClose: () => void;
}) {
  const client = useQueryClient();
  const route = editing === 'new' ? undefined : editing;
  const [name, setName] = useState('');
  const [position, setPosition] = useState<number | string>(100);
  const [to, setTo] = useState('');
  const [exact, setExact] = useState(false);
  const [keyword, setKeyword] = useState('');
  const [connector, setConnector] = useState('');
  const [anyConnector, setAnyConnector] = useState(false);
  const [account, setAccount] = useState('');
  const [webhookUrl, setWebhookUrl] = useState('');
  const [format, setFormat] = useState<string>('json');
  const [smpp, setSmpp] = useState(false);
  useEffect(() => {
    if (editing === undefined) return;
    setName(route?.name ?? '');
    setPosition(route?.position ?? 100);
    setTo(route?.to ?? '');
    setExact(route?.exact ?? false);
    setKeyword(route?.keyword ?? '');
    setConnector(route?.any_connector === true ? '' : (route?.connector ?? ''));
    setAnyConnector(route?.any_connector ?? false);
    setAccount(route?.account ?? '');
    setWebhookUrl(route?.webhook_url ?? '');
    setFormat(route?.webhook_format ?? 'json');
    setSmpp(route?.smpp ?? false);
  }, [editing, route]);
  const save = useMutation({
    mutationFn: () =>
      api<unknown>('PUT', `/admin/v1/mo-routes/${encodeURIComponent(name)}`, {
        position: Number(position),
        ...(to.trim() !== '' && { to: to.trim(), exact }),
        ...(keyword.trim() !== '' && { keyword: keyword.trim() }),
        ...(anyConnector
          ? { any_connector: true }
          : connector.trim() !== '' && { connector: connector.trim() }),
        account: account.trim(),
        ...(webhookUrl.trim() !== '' && { webhook_url: webhookUrl.trim() }),
        webhook_format: format,
        ...(route && { kannel_reply: route.kannel_reply }),
        smpp,
      }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['mo-routes'] });
      onClose();
    },
  });
  return (
    <FormModal
      opened={editing !== undefined}
      title={route ? `Edit MO route ${route.name}` : 'Add an MO route'}
      save={save}
      submit="Save the route"
      onClose={onClose}
    >
      {!route && (
        <TextInput
          label="Name"
          required
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
        />
      )}
      <NumberInput label="Position" required min={1} value={position} onChange={setPosition} />
      <Group grow align="end">
        <TextInput
          label="Sent to"
          description="A number or its prefix; empty: any"
          value={to}
          onChange={(e) => setTo(e.currentTarget.value)}
        />
        <Checkbox
          label="This number exactly"
          checked={exact}
          onChange={(e) => setExact(e.currentTarget.checked)}
        />
      </Group>
      <TextInput
        label="Keyword"
        description="The text's first word; empty: any"
        value={keyword}
        onChange={(e) => setKeyword(e.currentTarget.value)}
      />
      <Group grow align="end">
        <TextInput
          label="Connector"
          description="Empty: default"
          disabled={anyConnector}
          value={connector}
          onChange={(e) => setConnector(e.currentTarget.value)}
        />
        <Checkbox
          label="Any connector"
          checked={anyConnector}
          onChange={(e) => setAnyConnector(e.currentTarget.checked)}
        />
      </Group>
      <TextInput
        label="Account"
        required
        value={account}
        onChange={(e) => setAccount(e.currentTarget.value)}
      />
      <Group grow>
        <TextInput
          label="Webhook URL"
          description="Empty: kept for the account to read"
          value={webhookUrl}
          onChange={(e) => setWebhookUrl(e.currentTarget.value)}
        />
        <Select
          label="Webhook format"
          data={[
            { value: 'json', label: 'JSON' },
            { value: 'jasmin', label: "Jasmin's MO fields" },
            { value: 'kannel', label: 'Kannel sms-service URL' },
          ]}
          value={format}
          allowDeselect={false}
          onChange={(v) => v !== null && setFormat(v)}
        />
      </Group>
      <Checkbox
        label="Also to the account's SMPP receiver sessions"
        checked={smpp}
        onChange={(e) => setSmpp(e.currentTarget.checked)}
      />
    </FormModal>
  );
}
