import { Group, NumberInput, Select, Text, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { ConnectorView } from '@smsgw/contracts';
import { api } from './api';
import { FormModal } from './parts';

/**
 * Adds a connector, or changes one's URL, binds and bind mode. The URL shown has its password
 * masked, so an edit sends a URL only when one is typed.
 */
export function ConnectorForm({
  editing,
  onClose,
}: {
  editing: ConnectorView | 'new' | undefined;
  onClose: () => void;
}) {
  const client = useQueryClient();
  const connector = editing === 'new' ? undefined : editing;
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [binds, setBinds] = useState<number | string>(1);
  const [bind, setBind] = useState<string>('transceiver');
  useEffect(() => {
    if (editing === undefined) return;
    setName(connector?.name ?? '');
    setUrl('');
    setBinds(connector?.binds ?? 1);
    setBind(connector?.bind ?? 'transceiver');
  }, [editing, connector]);
  const save = useMutation({
    mutationFn: () =>
      connector
        ? api<{ data: ConnectorView }>(
            'PATCH',
            `/admin/v1/connectors/${encodeURIComponent(connector.name)}`,
            { ...(url.trim() !== '' && { url: url.trim() }), binds: Number(binds), bind },
          )
        : api<{ data: ConnectorView }>('POST', '/admin/v1/connectors', {
            name,
            url: url.trim(),
            binds: Number(binds),
            bind,
          }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['connectors'] });
      onClose();
    },
  });
  return (
    <FormModal
      opened={editing !== undefined}
      title={connector ? `Edit connector ${connector.name}` : 'Add a connector'}
      save={save}
      submit="Save the connector"
      onClose={onClose}
    >
      {!connector && (
        <TextInput
          label="Name"
          description="Letters, digits, . _ -; routes name it"
          required
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
        />
      )}
      <TextInput
        label="URL"
        description={
          connector
            ? `Now ${connector.url}; empty keeps it`
            : 'smpp://user:password@host:port (smpps:// for TLS), or http(s):// for an HTTP SMSC, with the parameters SMSC_URL takes'
        }
        required={!connector}
        value={url}
        onChange={(e) => setUrl(e.currentTarget.value)}
      />
      <Group grow>
        <NumberInput label="Binds" min={1} max={64} value={binds} onChange={setBinds} />
        <Select
          label="Bind mode"
          data={[
            { value: 'transceiver', label: 'transceiver' },
            { value: 'transmitter_receiver', label: 'transmitter and receiver' },
          ]}
          value={bind}
          allowDeselect={false}
          onChange={(v) => v !== null && setBind(v)}
        />
      </Group>
      <Text size="sm">Dispatchers bind to a new or changed connector within seconds.</Text>
    </FormModal>
  );
}
