-- The operators' view (docs/operators.md): which entry point accepted each message, the indexes a
-- search by account and by destination walks newest first, the calling codes that name a
-- destination's country, the CDRs kept after their messages, and the statistics kept by hour.

-- rest, jasmin-http, kannel-sendsms, smpp, kannel-reply or batch; NULL for messages accepted before.
ALTER TABLE messages ADD COLUMN entry text;

-- Neither column changes after the insert, so the claim's and the receipt's updates stay HOT.
-- text_pattern_ops serves an exact destination and a prefix (LIKE '4179%') alike, in any collation.
CREATE INDEX messages_account_id ON messages (account_id, id);
CREATE INDEX messages_to_id ON messages (to_addr text_pattern_ops, id);

-- The E.164 country calling codes and the main region of each (001: non-geographic), as
-- libphonenumber's metadata lists them. They are prefix-free: a number starts with at most one.
CREATE TABLE calling_codes (
  code   text PRIMARY KEY,
  region text NOT NULL
);
INSERT INTO calling_codes (code, region) VALUES
  ('1','US'), ('20','EG'), ('211','SS'), ('212','MA'), ('213','DZ'), ('216','TN'), ('218','LY'),
  ('220','GM'), ('221','SN'), ('222','MR'), ('223','ML'), ('224','GN'), ('225','CI'), ('226','BF'),
  ('227','NE'), ('228','TG'), ('229','BJ'), ('230','MU'), ('231','LR'), ('232','SL'), ('233','GH'),
  ('234','NG'), ('235','TD'), ('236','CF'), ('237','CM'), ('238','CV'), ('239','ST'), ('240','GQ'),
  ('241','GA'), ('242','CG'), ('243','CD'), ('244','AO'), ('245','GW'), ('246','IO'), ('247','AC'),
  ('248','SC'), ('249','SD'), ('250','RW'), ('251','ET'), ('252','SO'), ('253','DJ'), ('254','KE'),
  ('255','TZ'), ('256','UG'), ('257','BI'), ('258','MZ'), ('260','ZM'), ('261','MG'), ('262','RE'),
  ('263','ZW'), ('264','NA'), ('265','MW'), ('266','LS'), ('267','BW'), ('268','SZ'), ('269','KM'),
  ('27','ZA'), ('290','SH'), ('291','ER'), ('297','AW'), ('298','FO'), ('299','GL'), ('30','GR'),
  ('31','NL'), ('32','BE'), ('33','FR'), ('34','ES'), ('350','GI'), ('351','PT'), ('352','LU'),
  ('353','IE'), ('354','IS'), ('355','AL'), ('356','MT'), ('357','CY'), ('358','FI'), ('359','BG'),
  ('36','HU'), ('370','LT'), ('371','LV'), ('372','EE'), ('373','MD'), ('374','AM'), ('375','BY'),
  ('376','AD'), ('377','MC'), ('378','SM'), ('380','UA'), ('381','RS'), ('382','ME'), ('383','XK'),
  ('385','HR'), ('386','SI'), ('387','BA'), ('389','MK'), ('39','IT'), ('40','RO'), ('41','CH'),
  ('420','CZ'), ('421','SK'), ('423','LI'), ('43','AT'), ('44','GB'), ('45','DK'), ('46','SE'),
  ('47','NO'), ('48','PL'), ('49','DE'), ('500','FK'), ('501','BZ'), ('502','GT'), ('503','SV'),
  ('504','HN'), ('505','NI'), ('506','CR'), ('507','PA'), ('508','PM'), ('509','HT'), ('51','PE'),
  ('52','MX'), ('53','CU'), ('54','AR'), ('55','BR'), ('56','CL'), ('57','CO'), ('58','VE'),
  ('590','GP'), ('591','BO'), ('592','GY'), ('593','EC'), ('594','GF'), ('595','PY'), ('596','MQ'),
  ('597','SR'), ('598','UY'), ('599','CW'), ('60','MY'), ('61','AU'), ('62','ID'), ('63','PH'),
  ('64','NZ'), ('65','SG'), ('66','TH'), ('670','TL'), ('672','NF'), ('673','BN'), ('674','NR'),
  ('675','PG'), ('676','TO'), ('677','SB'), ('678','VU'), ('679','FJ'), ('680','PW'), ('681','WF'),
  ('682','CK'), ('683','NU'), ('685','WS'), ('686','KI'), ('687','NC'), ('688','TV'), ('689','PF'),
  ('690','TK'), ('691','FM'), ('692','MH'), ('7','RU'), ('800','001'), ('808','001'), ('81','JP'),
  ('82','KR'), ('84','VN'), ('850','KP'), ('852','HK'), ('853','MO'), ('855','KH'), ('856','LA'),
  ('86','CN'), ('870','001'), ('878','001'), ('880','BD'), ('881','001'), ('882','001'),
  ('883','001'), ('886','TW'), ('888','001'), ('90','TR'), ('91','IN'), ('92','PK'), ('93','AF'),
  ('94','LK'), ('95','MM'), ('960','MV'), ('961','LB'), ('962','JO'), ('963','SY'), ('964','IQ'),
  ('965','KW'), ('966','SA'), ('967','YE'), ('968','OM'), ('970','PS'), ('971','AE'), ('972','IL'),
  ('973','BH'), ('974','QA'), ('975','BT'), ('976','MN'), ('977','NP'), ('979','001'), ('98','IR'),
  ('992','TJ'), ('993','TM'), ('994','AZ'), ('995','GE'), ('996','KG'), ('998','UZ');

-- The destination's calling code ('' when none matches). One equality lookup per length, each
-- read off the primary key: a single lookup of the three prefixes (IN) is planned as a scan of
-- the whole small table per call, which the CDRs and the statistics pay on every message.
CREATE FUNCTION smsgw_calling_code(addr text) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT COALESCE((SELECT c.code FROM calling_codes c WHERE c.code = left(addr, 1)),
                  (SELECT c.code FROM calling_codes c WHERE c.code = left(addr, 2)),
                  (SELECT c.code FROM calling_codes c WHERE c.code = left(addr, 3)), '')
$$;

-- A message's CDR once its period's partitions are dropped (docs/operators.md § CDRs): the
-- billing facts without the text, kept CDR_RETENTION_DAYS. Messages still in their partitions are
-- read from there.
CREATE TABLE cdrs (
  id           uuid PRIMARY KEY,
  account_id   uuid NOT NULL,
  username     text NOT NULL,
  entry        text,
  from_addr    text,
  to_addr      text NOT NULL,
  country_code text NOT NULL,
  segments     integer NOT NULL,
  coding       smallint NOT NULL,
  charged      numeric(20, 6) NOT NULL,
  refunded     numeric(20, 6) NOT NULL,
  route        text,
  connector    text,
  smsc_id      text,
  batch_id     uuid,
  accepted_at  timestamptz NOT NULL,
  submitted_at timestamptz,
  done_at      timestamptz NOT NULL,
  state        text NOT NULL,
  error        text,
  -- [{seq, smsc_id, state, stat, err}] of a message sent in several parts; NULL for one part.
  part_rows    jsonb
);
CREATE INDEX cdrs_account_id ON cdrs (account_id, id);

-- Counts and money by hour of acceptance and by what the statistics group by; '' stands for none.
CREATE TABLE message_stats (
  hour       timestamptz NOT NULL,
  account_id uuid NOT NULL,
  connector  text NOT NULL,
  route      text NOT NULL,
  country    text NOT NULL,
  state      text NOT NULL,
  messages   bigint NOT NULL,
  parts      bigint NOT NULL,
  charged    numeric(20, 6) NOT NULL,
  refunded   numeric(20, 6) NOT NULL,
  PRIMARY KEY (hour, account_id, connector, route, country, state)
);
CREATE INDEX message_stats_account ON message_stats (account_id, hour);

-- The same counts by UTC day without the account, added to by the statements that add to
-- message_stats: what a query over every account by day reads instead of the hours.
CREATE TABLE message_stats_daily (
  day       timestamptz NOT NULL,
  connector text NOT NULL,
  route     text NOT NULL,
  country   text NOT NULL,
  state     text NOT NULL,
  messages  bigint NOT NULL,
  parts     bigint NOT NULL,
  charged   numeric(20, 6) NOT NULL,
  refunded  numeric(20, 6) NOT NULL,
  PRIMARY KEY (day, connector, route, country, state)
);

-- The acceptance time up to which messages are counted (NULL: not yet begun): each message is
-- counted once, in the slice of acceptance time it falls in, or later once it ends; and when the
-- pending messages were last looked at.
CREATE TABLE message_stats_watermark (
  one                boolean PRIMARY KEY DEFAULT true CHECK (one),
  counted_until      timestamptz,
  pending_checked_at timestamptz
);
INSERT INTO message_stats_watermark DEFAULT VALUES;

-- Messages of a counted slice that had not ended then: counted once they end (or settle).
CREATE TABLE message_stats_pending (
  id   uuid PRIMARY KEY,
  hour timestamptz NOT NULL
);
CREATE INDEX message_stats_pending_hour ON message_stats_pending (hour);
